import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { R2Bucket } from '../../../../src/runtime/bindings/r2';
import type { R2ObjectBody } from '../../../../src/runtime/bindings/r2Object';
import { manualTimers, storeAt, tempDir } from './helpers';

async function bucketAt(dir: string, time = manualTimers()) {
  return new R2Bucket(await storeAt(dir, R2Bucket.schema), time.now);
}

describe('R2 bucket', () => {
  it('stores bytes with http and custom metadata and an md5 etag', async () => {
    const bucket = await bucketAt(tempDir('r2'));
    const put = await bucket.put('a.txt', 'hello', { httpMetadata: { contentType: 'text/plain' }, customMetadata: { by: 'me' } });
    assert.equal(put!.etag, '5d41402abc4b2a76b9719d911017c592');
    assert.equal(put!.httpEtag, '"5d41402abc4b2a76b9719d911017c592"');
    assert.deepEqual(put!.checksums.toJSON(), { md5: '5d41402abc4b2a76b9719d911017c592' });
    const got = (await bucket.get('a.txt')) as R2ObjectBody;
    assert.equal(await got.text(), 'hello');
    assert.deepEqual(got.range, { offset: 0, length: 5 });
    const headers = new Headers();
    got.writeHttpMetadata(headers);
    assert.equal(headers.get('content-type'), 'text/plain');
    assert.deepEqual((await bucket.head('a.txt'))!.customMetadata, { by: 'me' });
    assert.equal(await bucket.head('nope'), null);
    // The text wrangler dev 4.86.0 gives (checked by the differential area r2).
    await assert.rejects(bucket.put('b', 'x', { md5: '00'.repeat(16) }), {
      message: `put: The MD5 checksum you specified did not match what we received.\nYou provided a MD5 checksum with value: ${'00'.repeat(16)}\nActual MD5 was: 9dd4e461268c8034f5c8564e155c67a6 (10037)`,
    });
    await assert.rejects(bucket.put('b', 'x', { md5: '00'.repeat(16), sha1: '00'.repeat(20) }), {
      name: 'TypeError',
      message: 'You cannot specify multiple hashing algorithms.',
    });
    await assert.rejects(bucket.put('b', 'x', { md5: 'abc' }), { name: 'TypeError', message: 'MD5 is 32 hex characters, not 3' });
  });

  it('reads ranges: offset and length, suffix, and refuses one past the end', async () => {
    const bucket = await bucketAt(tempDir('r2'));
    await bucket.put('k', '0123456789');
    assert.equal(await ((await bucket.get('k', { range: { offset: 2, length: 3 } })) as R2ObjectBody).text(), '234');
    assert.equal(await ((await bucket.get('k', { range: { suffix: 4 } })) as R2ObjectBody).text(), '6789');
    assert.equal(await ((await bucket.get('k', { range: new Headers({ range: 'bytes=8-' }) })) as R2ObjectBody).text(), '89');
    await assert.rejects(bucket.get('k', { range: { offset: 10 } }), { message: 'get: The requested range is not satisfiable (10039)' });
    // A Range header it cannot serve is ignored, as workerd does: the whole object comes back.
    const past = (await bucket.get('k', { range: new Headers({ range: 'bytes=20-30' }) })) as R2ObjectBody;
    assert.deepEqual(past.range, { offset: 0, length: 10 });
    assert.equal(await past.text(), '0123456789');
    await assert.rejects(bucket.get('k', { range: { offset: -1 } }), {
      name: 'RangeError',
      message: 'Invalid range. Starting offset (-1) must be greater than or equal to 0.',
    });
    await assert.rejects(bucket.get('k', { range: { offset: 1, suffix: 2 } as never }), { name: 'TypeError', message: 'Suffix is incompatible with offset.' });
  });

  it('lists the empty key first and refuses an unknown include', async () => {
    const bucket = await bucketAt(tempDir('r2'));
    await bucket.put('', 'root');
    await bucket.put('a', '1');
    const listed = (await bucket.list()) as { objects: { key: string; range: unknown }[] };
    assert.deepEqual(
      listed.objects.map((o) => o.key),
      ['', 'a'],
    );
    assert.equal(listed.objects[0]!.range, undefined, 'a listed object has no range');
    await assert.rejects(bucket.list({ include: ['nope'] }), { name: 'RangeError', message: 'Unsupported include value nope' });
  });

  it('answers conditional gets and puts by etag and upload time', async () => {
    const time = manualTimers();
    const bucket = await bucketAt(tempDir('r2'), time);
    const first = await bucket.put('k', 'v1');
    const miss = await bucket.get('k', { onlyIf: { etagDoesNotMatch: first!.etag } });
    assert.equal('body' in miss!, false, 'a failed condition gives the object without its body');
    assert.equal(await bucket.put('k', 'v2', { onlyIf: { etagMatches: 'other' } }), null);
    await time.advance(5000);
    assert.notEqual(await bucket.put('k', 'v2', { onlyIf: new Headers({ 'if-match': `"${first!.etag}"` }) }), null);
    assert.equal(await ((await bucket.get('k', { onlyIf: { uploadedAfter: new Date(time.now() - 1000) } })) as R2ObjectBody).text(), 'v2');
  });

  it('lists with prefix, delimiter, limit and cursor', async () => {
    const bucket = await bucketAt(tempDir('r2'));
    for (const key of ['a/1', 'a/2', 'b/x/1', 'b/y', 'c']) await bucket.put(key, key, { customMetadata: { k: key } });
    const top = (await bucket.list({ delimiter: '/' })) as { objects: { key: string }[]; delimitedPrefixes: string[]; truncated: boolean };
    assert.deepEqual(
      top.objects.map((o) => o.key),
      ['c'],
    );
    assert.deepEqual(top.delimitedPrefixes, ['a/', 'b/']);
    const page = (await bucket.list({ prefix: 'b/', limit: 1, include: ['customMetadata'] })) as {
      objects: { key: string; customMetadata: unknown }[];
      truncated: boolean;
      cursor: string;
    };
    assert.deepEqual(
      page.objects.map((o) => [o.key, o.customMetadata]),
      [['b/x/1', { k: 'b/x/1' }]],
    );
    assert.equal(page.truncated, true);
    const next = (await bucket.list({ prefix: 'b/', limit: 1, cursor: page.cursor })) as {
      objects: { key: string; customMetadata: unknown }[];
      truncated: boolean;
    };
    assert.deepEqual(
      next.objects.map((o) => [o.key, o.customMetadata]),
      [['b/y', {}]],
    );
    assert.equal(next.truncated, false);
  });

  it('keeps hostile keys inside the bucket folder, deletes many at once, and keeps acknowledged puts across a crash', async () => {
    const root = tempDir('r2');
    const dir = path.join(root, 'bucket');
    const bucket = await bucketAt(dir);
    await bucket.put('../../escape', 'x');
    await bucket.put('/etc/passwd', 'y');
    await bucket.put('keep', 'z');
    assert.deepEqual(fs.readdirSync(root), ['bucket']);
    await bucket.delete(['../../escape', '/etc/passwd']);
    const again = await bucketAt(dir);
    assert.deepEqual(
      ((await again.list()) as { objects: { key: string }[] }).objects.map((o) => o.key),
      ['keep'],
    );
    assert.equal(await ((await again.get('keep')) as R2ObjectBody).text(), 'z');
    assert.equal(fs.readdirSync(path.join(dir, 'blobs')).length, 1, 'deleted objects leave no bytes behind');
  });

  it('sweeps bytes a crashed put left without a row', async () => {
    const dir = tempDir('r2');
    fs.mkdirSync(path.join(dir, 'blobs'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'blobs', 'deadbeef.bin'), 'orphan');
    const bucket = await bucketAt(dir);
    await bucket.put('k', 'v');
    assert.deepEqual(
      fs.readdirSync(path.join(dir, 'blobs')).filter((f) => f === 'deadbeef.bin'),
      [],
    );
  });
});
