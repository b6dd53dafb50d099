import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { populatesProcessEnv, processEnvOf, workerProcess, WORKER_NAVIGATOR } from '../../../../src/runtime/worker/workerGlobals';
import { asWorkerRequest, PLACEHOLDER_CF } from '../../../../src/runtime/worker/incomingRequest';

describe("the worker's process.env, as workerd fills it", () => {
  it('is filled under nodejs_compat from 2025-04-01, or with the flag, and not with the opt-out', () => {
    assert.equal(populatesProcessEnv({ date: '2025-04-01', flags: ['nodejs_compat'] }), true);
    assert.equal(populatesProcessEnv({ date: '2025-03-31', flags: ['nodejs_compat'] }), false);
    assert.equal(populatesProcessEnv({ date: '2024-01-01', flags: ['nodejs_compat', 'nodejs_compat_populate_process_env'] }), true);
    assert.equal(populatesProcessEnv({ date: '2026-01-01', flags: ['nodejs_compat', 'nodejs_compat_do_not_populate_process_env'] }), false);
    assert.equal(populatesProcessEnv({ date: '2026-01-01', flags: [] }), false, 'no nodejs_compat, no process.env');
  });

  it("holds string vars and secrets as they are and JSON vars as text, in workerd's order", () => {
    const env = processEnvOf({ PLAIN: 'text', NUM: 5, OBJ: { a: [1] }, SHADOWED: 'var' }, { SECRET_X: 's3cret', SHADOWED: 'secret' });
    assert.deepEqual(Object.entries(env), [
      ['PLAIN', 'text'],
      ['SECRET_X', 's3cret'],
      ['SHADOWED', 'secret'],
      ['NUM', '5'],
      ['OBJ', '{"a":[1]}'],
    ]);
  });

  it("never shows the serve process's environment, and turns values set into strings", () => {
    const process = workerProcess({ A: 'a' });
    assert.deepEqual({ ...process.env }, { A: 'a' });
    assert.equal(process.env['PATH'], undefined);
    (process.env as Record<string, unknown>)['N'] = 5;
    assert.equal(process.env['N'], '5');
    assert.equal(typeof process.nextTick, 'function');
    assert.equal(WORKER_NAVIGATOR.userAgent, 'Cloudflare-Workers');
  });
});

describe('a request as the worker sees it under wrangler dev', () => {
  it('has Accept-Encoding "br, gzip", the client\'s address in CF-Connecting-IP and Miniflare\'s placeholder cf', () => {
    const request = asWorkerRequest(new Request('http://127.0.0.1/x', { headers: { 'accept-encoding': 'deflate, zstd' } }), '::ffff:127.0.0.1');
    assert.equal(request.headers.get('accept-encoding'), 'br, gzip');
    assert.equal(request.headers.get('cf-connecting-ip'), '127.0.0.1');
    const cf = (request as Request & { cf: Record<string, unknown> }).cf;
    assert.equal(cf['clientAcceptEncoding'], 'deflate, zstd');
    assert.equal(cf['colo'], PLACEHOLDER_CF['colo']);
    assert.equal(Object.keys(request).includes('cf'), false, "a getter-like property, as workerd's");
  });

  it('keeps a CF-Connecting-IP the client sent, and an absent Accept-Encoding is an empty clientAcceptEncoding', () => {
    const request = asWorkerRequest(new Request('http://127.0.0.1/x', { headers: { 'cf-connecting-ip': '203.0.113.9' } }), '127.0.0.1');
    assert.equal(request.headers.get('cf-connecting-ip'), '203.0.113.9');
    assert.equal((request as Request & { cf: Record<string, unknown> }).cf['clientAcceptEncoding'], '');
  });

  it('gives each request a cf of its own, the whole placeholder deep, so a worker changing one changes no other', () => {
    const cfOf = () => (asWorkerRequest(new Request('http://127.0.0.1/x'), '127.0.0.1') as Request & { cf: Record<string, Record<string, unknown>> }).cf;
    const [first, second] = [cfOf(), cfOf()];
    assert.deepEqual(first, { ...structuredClone(PLACEHOLDER_CF), clientAcceptEncoding: '' });
    assert.deepEqual(Object.keys(first), [...Object.keys(PLACEHOLDER_CF), 'clientAcceptEncoding']);
    first['tlsClientAuth']!['certPresented'] = '1';
    (first['botManagement']!['detectionIds'] as number[]).push(7);
    first['botManagement']!['score'] = 1;
    assert.equal(second['tlsClientAuth']!['certPresented'], '0');
    assert.deepEqual(second['botManagement']!['detectionIds'], []);
    assert.equal(second['botManagement']!['score'], 99);
    assert.deepEqual(cfOf(), second, 'the placeholder itself is unchanged');
  });
});
