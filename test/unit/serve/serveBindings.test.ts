// `hookbench serve --worker` (the built dist/cli.js) on a worker of its own: JSON vars reach the
// worker as values with .dev.vars over them, a service binding to the worker's WorkerEntrypoint
// carries fetch and RPC (results, thrown errors, a missing method), and Miniflare's
// /cdn-cgi/handler/scheduled runs scheduled() with the cron and time it names.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startServe, type ServeProcess } from '../helpers/serveProcess';

const WRANGLER = {
  name: 'bindings-serve',
  main: 'worker.ts',
  compatibility_date: '2026-04-01',
  vars: { GREETING: 'hello', CONFIG: { retries: 3, hosts: ['a', 'b'], nested: { on: true } }, LIMIT: 10, OVERRIDDEN: 'vars' },
  services: [{ binding: 'API', service: 'bindings-serve', entrypoint: 'Api' }],
  triggers: { crons: ['0 0 1 1 *'] },
};

const WORKER = `
import { WorkerEntrypoint } from 'cloudflare:workers';
const scheduled = [];
export class Api extends WorkerEntrypoint {
  add(a, b) { return a + b; }
  greet(name) { return this.env.GREETING + ', ' + name; }
  fail() { throw new RangeError('refused by the entrypoint'); }
  async fetch(request) { return new Response('Api saw ' + request.method + ' ' + new URL(request.url).pathname); }
}
const settle = async (fn) => { try { return { value: await fn() }; } catch (e) { return { error: e.message, name: e.name }; } };
export default {
  async fetch(request, env) {
    const path = new URL(request.url).pathname;
    if (path === '/vars') return Response.json({ CONFIG: env.CONFIG, configType: typeof env.CONFIG, LIMIT: env.LIMIT, limitType: typeof env.LIMIT, OVERRIDDEN: env.OVERRIDDEN, SECRET: env.SECRET });
    if (path === '/rpc') {
      const fetched = await env.API.fetch('https://api.internal/orders', { method: 'POST' });
      return Response.json({
        add: await settle(() => env.API.add(2, 3)),
        greet: await settle(() => env.API.greet('webhook')),
        fail: await settle(() => env.API.fail()),
        missing: await settle(() => env.API.nothing()),
        fetch: await fetched.text(),
      });
    }
    if (path === '/scheduled') return Response.json(scheduled);
    return new Response('not found', { status: 404 });
  },
  scheduled(controller) { scheduled.push({ cron: controller.cron, time: controller.scheduledTime }); },
};
`;

const running: ServeProcess[] = [];
after(async () => {
  await Promise.all(running.map((s) => s.stop('SIGKILL')));
});

async function serveWorker(): Promise<ServeProcess> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-bindings-serve-'));
  fs.writeFileSync(path.join(folder, 'wrangler.json'), JSON.stringify(WRANGLER));
  fs.writeFileSync(path.join(folder, 'worker.ts'), WORKER);
  fs.writeFileSync(path.join(folder, '.dev.vars'), 'OVERRIDDEN=dev vars\nSECRET=s3cret\n');
  const server = await startServe([
    '--worker',
    path.join(folder, 'worker.ts'),
    '--config',
    path.join(folder, 'wrangler.json'),
    '--data',
    path.join(folder, 'data'),
    '--no-watch',
    '--no-render',
  ]);
  running.push(server);
  return server;
}

describe('bindings under hookbench serve --worker', () => {
  it('JSON vars, .dev.vars, RPC through a service binding, and the scheduled handler path', async () => {
    const server = await serveWorker();
    const vars = (await (await fetch(`${server.url}/vars`)).json()) as Record<string, unknown>;
    assert.deepEqual(vars, {
      CONFIG: { retries: 3, hosts: ['a', 'b'], nested: { on: true } },
      configType: 'object',
      LIMIT: 10,
      limitType: 'number',
      OVERRIDDEN: 'dev vars',
      SECRET: 's3cret',
    });

    const rpc = (await (await fetch(`${server.url}/rpc`)).json()) as Record<string, unknown>;
    assert.deepEqual(rpc, {
      add: { value: 5 },
      greet: { value: 'hello, webhook' },
      fail: { error: 'refused by the entrypoint', name: 'RangeError' },
      missing: { error: 'The RPC receiver does not implement the method "nothing".', name: 'TypeError' },
      fetch: 'Api saw POST /orders',
    });

    const ran = await fetch(`${server.url}/cdn-cgi/handler/scheduled?cron=0+0+1+1+*&time=1767225600000`);
    assert.equal(ran.status, 200);
    assert.equal(await ran.text(), 'ok');
    assert.deepEqual(await (await fetch(`${server.url}/scheduled`)).json(), [{ cron: '0 0 1 1 *', time: 1767225600000 }]);
    // Without --test-scheduled, /__scheduled is the worker's own path.
    assert.equal((await fetch(`${server.url}/__scheduled?cron=x`)).status, 404);
    assert.equal(await server.stop(), 0);
  });
});
