// The admin API's dispatch from the route table, against the built-in worker: which answer a
// request that names no route, or a route with another method, gets, and in which order.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ADMIN_API } from '../../../src/core/contract/admin';
import type { RouteHandler } from '../../../src/serve/admin/adminRouter';
import { serveDefaultWorker, type Served } from '../helpers/serveWorker';
import { SECRETS } from '../workers/payloads';

const TOKEN = 'admin-router-token';
let served: Served;
before(async () => {
  served = await serveDefaultWorker({ secrets: SECRETS, adminToken: TOKEN });
});
after(() => served.stop());

const ask = async (method: string, path: string, token?: string) => {
  const response = await fetch(`${served.url}${path}`, { method, headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: response.status, allow: response.headers.get('allow'), error: ((await response.json()) as { error?: string }).error };
};

describe('dispatch from the route table', () => {
  it('answers a path no route has with 404, once the token is shown', async () => {
    assert.equal((await ask('GET', '/__hookbench/nowhere')).status, 401);
    assert.deepEqual(await ask('GET', '/__hookbench/nowhere', TOKEN), { status: 404, allow: null, error: 'no admin route /__hookbench/nowhere' });
  });

  it('answers a route’s path with another method 405, naming the methods it allows', async () => {
    assert.equal((await ask('PUT', '/__hookbench/instances/webhook-agent/acme')).status, 401);
    assert.deepEqual(await ask('PUT', '/__hookbench/instances/webhook-agent/acme', TOKEN), { status: 405, allow: 'GET, DELETE', error: 'GET or DELETE' });
    assert.deepEqual(await ask('GET', '/__hookbench/instances/details', TOKEN), { status: 405, allow: 'POST', error: 'POST' });
  });

  it('asks no token of a path whose only route asks none', async () => {
    assert.deepEqual(await ask('GET', '/__hookbench/lock/confirm'), { status: 405, allow: 'POST', error: 'POST' });
  });

  it('types each handler by its route, so a wrong answer does not compile', () => {
    // @ts-expect-error an instance's details are not a query result
    const wrong: RouteHandler<typeof ADMIN_API.instance> = () => ({ columns: [], rows: [] });
    const right: RouteHandler<typeof ADMIN_API.clearEvents> = () => ({ deleted: 0 });
    assert.equal(typeof wrong, typeof right);
  });
});
