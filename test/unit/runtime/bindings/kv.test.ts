import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { KvNamespace } from '../../../../src/runtime/bindings/kv';
import { manualTimers, storeAt, tempDir } from './helpers';

async function kvAt(dir: string, time = manualTimers()) {
  return { kv: new KvNamespace(await storeAt(dir, KvNamespace.schema), time.now), time };
}

describe('KV namespace', () => {
  it('reads a value back as text, json, arrayBuffer and stream', async () => {
    const { kv } = await kvAt(tempDir('kv'));
    await kv.put('k', '{"a":1}');
    assert.equal(await kv.get('k'), '{"a":1}');
    assert.deepEqual(await kv.get('k', 'json'), { a: 1 });
    assert.deepEqual(await kv.get('k', { type: 'json', cacheTtl: 60 }), { a: 1 });
    assert.equal(new TextDecoder().decode((await kv.get('k', 'arrayBuffer')) as ArrayBuffer), '{"a":1}');
    assert.equal(await new Response((await kv.get('k', 'stream')) as ReadableStream).text(), '{"a":1}');
    assert.equal(await kv.get('missing'), null);
  });

  it('keeps metadata and answers getWithMetadata', async () => {
    const { kv } = await kvAt(tempDir('kv'));
    await kv.put('k', new Uint8Array([104, 105]), { metadata: { by: 'test' } });
    assert.deepEqual(await kv.getWithMetadata('k'), { value: 'hi', metadata: { by: 'test' }, cacheStatus: null });
    assert.deepEqual(await kv.getWithMetadata('nope'), { value: null, metadata: null, cacheStatus: null });
  });

  it('refuses TTLs under 60 seconds with the platform text, and expires keys on the clock', async () => {
    const { kv, time } = await kvAt(tempDir('kv'));
    await assert.rejects(kv.put('k', 'v', { expirationTtl: 30 }), {
      message: 'KV PUT failed: 400 Invalid expiration_ttl of 30. Expiration TTL must be at least 60.',
    });
    await assert.rejects(kv.put('k', 'v', { expiration: time.now() / 1000 + 10 }), /Expiration times must be at least 60 seconds in the future/);
    await kv.put('k', 'v', { expirationTtl: 60 });
    const listed = (await kv.list()) as { keys: { name: string; expiration: number }[] };
    assert.deepEqual(listed.keys, [{ name: 'k', expiration: time.now() / 1000 + 60 }]);
    await time.advance(59_000);
    assert.equal(await kv.get('k'), 'v');
    await time.advance(1_000);
    assert.equal(await kv.get('k'), null);
    assert.deepEqual(((await kv.list()) as { keys: unknown[] }).keys, []);
  });

  it('checks keys: empty, dots, over 512 bytes', async () => {
    const { kv } = await kvAt(tempDir('kv'));
    await assert.rejects(kv.get(''), { name: 'TypeError', message: 'Key name cannot be empty.' });
    await assert.rejects(kv.put('..', 'v'), /Illegal key name "\.\."/);
    await assert.rejects(kv.put('é'.repeat(257), 'v'), { message: 'KV PUT failed: 414 UTF-8 encoded length of 514 exceeds key length limit of 512.' });
    await kv.put('n', 42 as unknown as string);
    assert.equal(await kv.get('n'), '42', 'other values are stored as their string form, as workerd does');
  });

  it('lists in key order by prefix, with limit and cursor until list_complete', async () => {
    const { kv } = await kvAt(tempDir('kv'));
    for (const key of ['b/2', 'a/1', 'b/1', 'b/3', 'b%', 'c']) await kv.put(key, key, { metadata: key === 'b/1' ? 1 : undefined });
    const first = (await kv.list({ prefix: 'b/', limit: 2 })) as { keys: { name: string }[]; list_complete: boolean; cursor: string };
    assert.deepEqual(first.keys, [{ name: 'b/1', metadata: 1 }, { name: 'b/2' }]);
    assert.equal(first.list_complete, false);
    const rest = (await kv.list({ prefix: 'b/', limit: 2, cursor: first.cursor })) as Record<string, unknown>;
    assert.deepEqual(rest, { keys: [{ name: 'b/3' }], list_complete: true, cacheStatus: null });
    await assert.rejects(kv.list({ limit: 1001 }), /Invalid key_count_limit of 1001/);
  });

  it('gets many keys at once as a Map', async () => {
    const { kv } = await kvAt(tempDir('kv'));
    await kv.put('x', '1');
    const map = (await kv.get(['x', 'y'], 'json')) as Map<string, unknown>;
    assert.deepEqual(
      [...map],
      [
        ['x', 1],
        ['y', null],
      ],
    );
    await assert.rejects(kv.get(['x'], 'arrayBuffer'), /is not a valid type/);
  });

  it('keeps every acknowledged put and delete across a crash', async () => {
    const dir = tempDir('kv');
    const { kv } = await kvAt(dir);
    await kv.put('kept', 'yes');
    await kv.put('gone', 'no');
    await kv.delete('gone');
    // No close: the process died here. A new store opens the same folder.
    const { kv: again } = await kvAt(dir);
    assert.equal(await again.get('kept'), 'yes');
    assert.equal(await again.get('gone'), null);
  });
});
