// The admin route table's two sides: the path a client builds from a route is the path the server
// matches back to that route, its segments decoded to what the client gave.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_API, adminRoutesAt } from '../../../../src/core/contract/admin';
import { decodeParams, matchPattern, RouteError, routeLabel, routePath, type AnyRoute } from '../../../../src/core/contract/adminRoute';

const routes = Object.entries(ADMIN_API) as [string, AnyRoute][];
/** A path of `route` with every named segment filled in. */
const example = (route: AnyRoute) => route.pattern.replace(/<(\w+)>/g, (_, name: string) => `some-${name}`);

describe('the admin route table', () => {
  it('builds a path with each named segment percent-encoded as one segment', () => {
    const path = routePath(ADMIN_API.query, { namespace: 'WEBHOOK_AGENT', name: 'acme/../x y' });
    assert.equal(path, '/__hookbench/instances/WEBHOOK_AGENT/acme%2F..%2Fx%20y/query');
    const [match] = adminRoutesAt(path).filter(({ route }) => route === ADMIN_API.query);
    assert.deepEqual(decodeParams(ADMIN_API.query, match!.segments), { namespace: 'WEBHOOK_AGENT', name: 'acme/../x y' });
  });

  it('writes a query string from what the route reads, leaving out what is not given', () => {
    assert.equal(routePath(ADMIN_API.deliveries, {}, { limit: 200 }), '/__hookbench/deliveries?limit=200');
    assert.equal(
      routePath(ADMIN_API.kvKeys, { binding: 'CACHE' }, { prefix: 'user:', cursor: '', limit: 100 }),
      '/__hookbench/bindings/kv/CACHE/keys?prefix=user%3A&limit=100',
    );
    assert.equal(routePath(ADMIN_API.kvValue, { binding: 'CACHE' }, { key: '../x' }), '/__hookbench/bindings/kv/CACHE/value?key=..%2Fx');
    assert.equal(routePath(ADMIN_API.instances, {}), '/__hookbench/instances');
  });

  it('reads back the query it wrote', () => {
    const query = new URL(`http://x${routePath(ADMIN_API.r2Objects, { binding: 'FILES' }, { prefix: 'reports/', cursor: 'c1', limit: 2 })}`).searchParams;
    assert.deepEqual(ADMIN_API.r2Objects.query.parse(query), { prefix: 'reports/', cursor: 'c1', limit: 2 });
  });

  it('matches every route’s path to that route alone among the routes of its method', () => {
    for (const [name, route] of routes) {
      const method = 'method' in route ? route.method : 'websocket';
      const same = adminRoutesAt(example(route)).filter((match) => ('method' in match.route ? match.route.method : 'websocket') === method);
      assert.deepEqual(
        same.map((match) => match.name),
        [name],
        example(route),
      );
    }
  });

  it('tells a path of another shape from a route’s, literal segments compared as they came', () => {
    assert.equal(matchPattern('/__hookbench/lock/confirm', '/__hookbench/lock/%63onfirm'), undefined);
    assert.equal(matchPattern('/__hookbench/deliveries/<id>', '/__hookbench/deliveries/a/b'), undefined);
    assert.deepEqual(matchPattern('/__hookbench/deliveries/<id>', '/__hookbench/deliveries/a%2Fb'), { id: 'a%2Fb' });
  });

  it('answers 404 for an empty segment and 400 for one that is not valid percent-encoding', () => {
    assert.throws(
      () => decodeParams(ADMIN_API.delivery, { id: '' }),
      (error: unknown) => error instanceof RouteError && error.status === 404,
    );
    assert.throws(
      () => decodeParams(ADMIN_API.delivery, { id: '%E0%A4%A' }),
      (error: unknown) => error instanceof RouteError && error.status === 400,
    );
  });

  it('names each HTTP route as docs/admin-api.md does', () => {
    assert.equal(routeLabel(ADMIN_API.clearEvents), 'DELETE /__hookbench/instances/<namespace>/<name>/events');
  });
});
