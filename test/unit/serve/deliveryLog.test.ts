// The deliveries log: bounded by count and by bytes in memory and on disk, the newest kept across
// a restart even when files rotate faster than writes land, a torn last line (a crash mid-append)
// skipped, the files of earlier versions carried over.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DeliveryLog, type DeliveryLogOptions } from '../../../src/serve/deliveryLog';

function delivery(n: number, bodyBytes: number) {
  return {
    time: new Date(Date.UTC(2026, 10, 22, 0, 0, n)).toISOString(),
    method: 'POST',
    path: `/webhooks/github/e${n}`,
    requestHeaders: { 'x-github-delivery': `d-${n}` },
    requestBody: Buffer.alloc(bodyBytes, 65 + (n % 26)),
    status: 200,
    responseHeaders: {},
    responseBody: 'OK',
    durationMs: 1,
    provider: 'github',
    entity: `e${n}`,
    verification: 'valid',
  };
}

async function filled(options: Omit<DeliveryLogOptions, 'dir'>, count: number, bodyBytes: number): Promise<{ dir: string; paths: string[] }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-deliveries-'));
  const log = await DeliveryLog.open({ dir, ...options });
  for (let n = 0; n < count; n++) log.record(delivery(n, bodyBytes));
  const paths = log.list(10_000).map((d) => d.path);
  await log.close();
  return { dir, paths };
}

const diskBytes = (dir: string) => fs.readdirSync(dir).reduce((sum, f) => sum + fs.statSync(path.join(dir, f)).size, 0);

describe('deliveries log', () => {
  it('keeps the newest by count, in memory and after a restart', async () => {
    const { dir, paths } = await filled({ maxCount: 5 }, 12, 10);
    assert.deepEqual(
      paths,
      [11, 10, 9, 8, 7].map((n) => `/webhooks/github/e${n}`),
    );
    const reopened = await DeliveryLog.open({ dir, maxCount: 5 });
    assert.deepEqual(
      reopened.list(100).map((d) => d.path),
      paths,
    );
    await reopened.close();
  });

  it('keeps the newest by bytes, so big bodies cannot fill memory or disk, and reads them back whole', async () => {
    const maxBytes = 40_000;
    const { dir, paths } = await filled({ maxBytes }, 60, 4_000);
    // About 5.8 KB a delivery (base64 body and bookkeeping): six fit in 40 KB.
    assert.equal(paths.length, 6);
    assert.equal(paths[0], '/webhooks/github/e59');
    assert.ok(diskBytes(dir) <= 2 * maxBytes, `${diskBytes(dir)} bytes on disk`);
    const reopened = await DeliveryLog.open({ dir, maxBytes });
    const listed = reopened.list(100);
    assert.deepEqual(
      listed.map((d) => d.path),
      paths,
    );
    assert.deepEqual(reopened.get(listed[0]!.id)!.requestBody, Buffer.alloc(4_000, 65 + (59 % 26)));
    await reopened.close();
  });

  it('skips a torn last line and keeps every complete one', async () => {
    const { dir, paths } = await filled({}, 3, 10);
    const file = fs
      .readdirSync(dir)
      .map((f) => path.join(dir, f))
      .find((f) => fs.statSync(f).size > 0)!;
    fs.appendFileSync(file, '{"id":"torn","time":"2027');
    const reopened = await DeliveryLog.open({ dir });
    assert.deepEqual(
      reopened.list(100).map((d) => d.path),
      paths,
    );
    reopened.record(delivery(3, 10));
    await reopened.close();
    // The delivery after the torn line is not glued to it.
    const again = await DeliveryLog.open({ dir });
    assert.deepEqual(
      again.list(100).map((d) => d.path),
      ['/webhooks/github/e3', ...paths],
    );
    await again.close();
  });

  it('reads the two reused files of earlier versions once, in order, and carries them over', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-deliveries-legacy-'));
    const line = (n: number) =>
      JSON.stringify({
        id: `legacy-${n}`,
        time: new Date(Date.UTC(2026, 10, 21, 0, 0, n)).toISOString(),
        method: 'POST',
        path: `/old/${n}`,
        requestHeaders: {},
        requestTruncated: false,
        requestBytes: 0,
        status: 200,
        responseHeaders: {},
        durationMs: 1,
        provider: null,
        entity: null,
        verification: null,
        body: '',
        responseBody: '',
      }) + '\n';
    fs.writeFileSync(path.join(dir, 'deliveries-b.ndjson'), line(0) + line(1));
    fs.writeFileSync(path.join(dir, 'deliveries-a.ndjson'), line(2));
    const log = await DeliveryLog.open({ dir });
    assert.deepEqual(
      log.list(10).map((d) => d.path),
      ['/old/2', '/old/1', '/old/0'],
    );
    log.record(delivery(9, 10));
    await log.close();
    assert.deepEqual(
      fs.readdirSync(dir).filter((f) => f.startsWith('deliveries-a') || f.startsWith('deliveries-b')),
      [],
    );
    const reopened = await DeliveryLog.open({ dir });
    assert.deepEqual(
      reopened.list(10).map((d) => d.path),
      ['/webhooks/github/e9', '/old/2', '/old/1', '/old/0'],
    );
    await reopened.close();
  });
});
