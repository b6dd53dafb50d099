// How the receiver answers failures a retry gets past: 503 with Retry-After, the reason in the
// body and the log, and the delivery recorded. The worker here is a stand-in that throws what the
// runtime throws; the real paths are covered by faults.test.ts (a full disk) and
// instanceHost.test.ts (shutdown).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { recording, nullLogger } from '../../../../src/core/log';
import { InstanceClosedError, StorageWriteError } from '../../../../src/runtime/errors';
import type { WorkerRuntime } from '../../../../src/runtime/worker/workerRuntime';
import { DeliveryLog } from '../../../../src/serve/deliveryLog';
import { Receiver } from '../../../../src/serve/http/receiver';

async function answer(
  error: Error,
): Promise<{ status: number; retryAfter: string | null; body: string; logged: readonly string[]; recorded: number | undefined }> {
  const logger = recording(nullLogger);
  const deliveries = await DeliveryLog.open({ dir: fs.mkdtempSync(path.join(os.tmpdir(), 'hb-receiver-')) });
  const runtime = { fetch: async () => Promise.reject(new Error('wrapped by user code', { cause: error })) } as unknown as WorkerRuntime;
  const receiver = new Receiver({ host: '127.0.0.1', port: 0, runtime: async () => runtime, logger, deliveries });
  const url = await receiver.listen();
  try {
    const response = await fetch(`${url}/webhooks/github`, { method: 'POST', body: '{}' });
    return {
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      body: await response.text(),
      logged: logger.lines(),
      recorded: deliveries.list(1)[0]?.status,
    };
  } finally {
    await receiver.close();
    await deliveries.close();
  }
}

describe('receiver: failures a retry gets past', () => {
  it('answers 503 with Retry-After 1 when the instance was shut down for a reload', async () => {
    const { status, retryAfter, body, logged, recorded } = await answer(new InstanceClosedError('acme-widgets'));
    assert.equal(status, 503);
    assert.equal(retryAfter, '1');
    assert.match(body, /^Service Unavailable: the instance "acme-widgets" was shut down/);
    assert.ok(logged.some((line) => line.includes('was shut down')));
    assert.equal(recorded, 503);
  });

  it('answers 503 with Retry-After 30 when the disk refused the write', async () => {
    const { status, retryAfter, body } = await answer(new StorageWriteError(Object.assign(new Error('no space'), { code: 'ENOSPC' })));
    assert.equal(status, 503);
    assert.equal(retryAfter, '30');
    assert.match(body, /the disk is full \(ENOSPC\)/);
  });

  it('answers 500 with the stack for anything else', async () => {
    const { status, retryAfter, body } = await answer(new TypeError('a bug in the agent'));
    assert.equal(status, 500);
    assert.equal(retryAfter, null);
    assert.match(body, /wrapped by user code\n\s+at /);
  });
});
