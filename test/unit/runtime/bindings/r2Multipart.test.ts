// R2 multipart uploads on real files: parts survive a reopen, complete/abort leave no stray files,
// hostile keys never reach a path, and the limits and error texts are wrangler dev's.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { R2Bucket } from '../../../../src/runtime/bindings/r2';
import { MIN_PART_BYTES } from '../../../../src/runtime/bindings/r2Multipart';
import type { R2ObjectBody } from '../../../../src/runtime/bindings/r2Object';
import { manualTimers, storeAt, tempDir } from './helpers';

async function bucketAt(dir: string) {
  return new R2Bucket(await storeAt(dir, R2Bucket.schema), manualTimers().now);
}

/** Every file under `dir`, relative, sorted. */
function filesUnder(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(dir, f)).isFile()).sort();
}

const partFiles = (dir: string) => (fs.existsSync(path.join(dir, 'parts')) ? fs.readdirSync(path.join(dir, 'parts')) : []);
const md5 = (data: Uint8Array | string) => createHash('md5').update(data).digest();

describe('R2 multipart uploads', () => {
  it('completes parts sent through a resumed upload after a reopen, with the md5-of-md5s etag', async () => {
    const dir = tempDir('r2mp');
    const first = await bucketAt(dir);
    const upload = await first.createMultipartUpload('../escape', { httpMetadata: { contentType: 'text/plain' }, customMetadata: { via: 'mp' } });
    const big = new Uint8Array(MIN_PART_BYTES).fill(97);
    const part1 = await upload.uploadPart(1, big);
    assert.equal(partFiles(dir).length, 1);
    // The process goes away with the upload half done; a new one resumes it by id.
    const second = await bucketAt(dir);
    const resumed = second.resumeMultipartUpload('../escape', upload.uploadId);
    const part2 = await resumed.uploadPart(2, 'tail');
    assert.equal(await second.head('../escape'), null);
    const object = await resumed.complete([part1, part2]);
    const etag = createHash('md5')
      .update(Buffer.concat([md5(big), md5('tail')]))
      .digest('hex');
    assert.equal(object.etag, `${etag}-2`);
    assert.equal(object.size, MIN_PART_BYTES + 4);
    assert.deepEqual(object.checksums.toJSON(), {});
    const third = await bucketAt(dir);
    const tail = (await third.get('../escape', { range: { offset: MIN_PART_BYTES - 1 } })) as R2ObjectBody;
    assert.equal(await tail.text(), 'atail');
    assert.equal(tail.httpMetadata.contentType, 'text/plain');
    assert.deepEqual(tail.customMetadata, { via: 'mp' });
    // Nothing but the index and one blob: no part files left, nothing outside the bucket's folder.
    assert.deepEqual(partFiles(dir), []);
    assert.equal(filesUnder(dir).filter((f) => f.startsWith('blobs')).length, 1);
    assert.ok(filesUnder(dir).every((f) => !f.includes('escape')));
    assert.ok(!fs.existsSync(path.join(path.dirname(dir), 'escape')));
    await assert.rejects(resumed.uploadPart(3, 'more'), { message: 'uploadPart: The specified multipart upload does not exist. (10024)' });
    await assert.rejects(resumed.complete([part1]), { message: 'completeMultipartUpload: The specified multipart upload does not exist. (10024)' });
  });

  it('abort removes the parts, and a part sent again replaces its file', async () => {
    const dir = tempDir('r2mp');
    const bucket = await bucketAt(dir);
    const upload = await bucket.createMultipartUpload('k');
    const old = await upload.uploadPart(1, 'x');
    const again = await upload.uploadPart(1, 'y');
    assert.notEqual(old.etag, again.etag);
    assert.equal(partFiles(dir).length, 1);
    await assert.rejects(upload.complete([old]), { message: 'completeMultipartUpload: One or more of the specified parts could not be found. (10025)' });
    await upload.abort();
    assert.deepEqual(partFiles(dir), []);
    await upload.abort();
    await assert.rejects(upload.uploadPart(2, 'z'), { message: 'uploadPart: The specified multipart upload does not exist. (10024)' });
    assert.deepEqual(partFiles(dir), []);
  });

  it('sweeps, on reopen, part files a crash left without their row', async () => {
    const dir = tempDir('r2mp');
    const bucket = await bucketAt(dir);
    const upload = await bucket.createMultipartUpload('k');
    const kept = await upload.uploadPart(1, 'kept');
    // A part whose bytes were written but whose row never committed (the process died between).
    fs.writeFileSync(path.join(dir, 'parts', 'deadbeef.bin'), 'orphan');
    const reopened = await bucketAt(dir);
    assert.equal(await reopened.head('k'), null);
    assert.deepEqual(partFiles(dir).length, 1);
    const object = await reopened.resumeMultipartUpload('k', upload.uploadId).complete([kept]);
    assert.equal(object.size, 4);
    assert.equal(await ((await reopened.get('k')) as R2ObjectBody).text(), 'kept');
  });

  it('refuses what wrangler dev refuses, with its texts', async () => {
    const bucket = await bucketAt(tempDir('r2mp'));
    const upload = await bucket.createMultipartUpload('k');
    await assert.rejects(upload.uploadPart(0, 'x'), { name: 'TypeError', message: 'Part number must be between 1 and 10000 (inclusive). Actual value was: 0' });
    await assert.rejects(upload.uploadPart(10001, 'x'), {
      name: 'TypeError',
      message: 'Part number must be between 1 and 10000 (inclusive). Actual value was: 10001',
    });
    assert.equal((await upload.uploadPart(1.5, 'x')).partNumber, 1);
    const small = await upload.uploadPart(2, 'y');
    const first = await upload.uploadPart(1, 'x');
    await assert.rejects(upload.complete([first, small]), {
      message: 'completeMultipartUpload: Your proposed upload is smaller than the minimum allowed object size. (10011)',
    });
    await assert.rejects(upload.complete([small, small]), { message: 'completeMultipartUpload: We encountered an internal error. Please try again. (10001)' });
    await assert.rejects(bucket.resumeMultipartUpload('k', 'nope').abort(), {
      message: 'abortMultipartUpload: We encountered an internal error. Please try again. (10001)',
    });
    await assert.rejects(bucket.resumeMultipartUpload('other', upload.uploadId).uploadPart(1, 'x'), {
      message: 'uploadPart: The specified multipart upload does not exist. (10024)',
    });
    await assert.rejects(bucket.createMultipartUpload('k'.repeat(1025)), { message: 'createMultipartUpload: The specified object name is not valid. (10020)' });
    const equal = await bucketAt(tempDir('r2mp'));
    const uneven = await equal.createMultipartUpload('u');
    const a = await uneven.uploadPart(1, new Uint8Array(MIN_PART_BYTES));
    const b = await uneven.uploadPart(2, new Uint8Array(MIN_PART_BYTES + 1));
    await assert.rejects(uneven.complete([a, b]), { message: 'completeMultipartUpload: There was a problem with the multipart upload. (10048)' });
    const empty = await uneven.complete([]);
    assert.equal(empty.etag, 'd41d8cd98f00b204e9800998ecf8427e-0');
  });
});
