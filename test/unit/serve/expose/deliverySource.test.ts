// Where a delivery came from: claimed by a loopback client in the hookbench-source header,
// never by a request that names a public host; kept in the deliveries log and read back safely.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { RELAY_REENCODED_NOTE } from '../../../../src/core/contract/deliveries';
import { deliverySource, withoutSourceHeader } from '../../../../src/serve/http/deliverySource';
import { DeliveryLog } from '../../../../src/serve/deliveryLog';

describe('deliverySource', () => {
  const local = { host: '127.0.0.1:8787' };

  it('takes a loopback client at its word: send, replay, smee, stripe', () => {
    assert.deepEqual(deliverySource({ ...local, 'hookbench-source': 'send' }, 'valid'), { kind: 'send' });
    assert.deepEqual(deliverySource({ host: 'localhost:8787', 'hookbench-source': 'replay' }, 'valid'), { kind: 'replay' });
    assert.deepEqual(deliverySource({ ...local, 'hookbench-source': 'stripe' }, 'valid'), { kind: 'relay', name: 'stripe' });
    assert.deepEqual(deliverySource({ ...local, 'hookbench-source': 'smee; body=same-length' }, 'valid'), { kind: 'relay', name: 'smee' });
    assert.equal(deliverySource(local, null), undefined, 'curl and the like: no claim, no source');
    assert.equal(deliverySource({ ...local, 'hookbench-source': 'github' }, null), undefined, 'an unknown name is no source');
  });

  it('explains a re-encoded body: always when its length changed, on a signature mismatch when it did not', () => {
    assert.equal(deliverySource({ ...local, 'hookbench-source': 'smee; body=changed' }, 'mismatch: …')?.note, RELAY_REENCODED_NOTE);
    assert.match(
      deliverySource({ ...local, 'hookbench-source': 'smee; body=same-length' }, 'mismatch: …')?.note ?? '',
      /^relayed: body re-encoded by the relay \(same length/,
    );
    assert.equal(
      deliverySource({ ...local, 'hookbench-source': 'smee; body=same-length' }, 'no_secret: …')?.note,
      undefined,
      'no secret: the note would mislead',
    );
    assert.equal(deliverySource({ ...local, 'hookbench-source': 'smee; body=raw' }, 'mismatch: …')?.note, undefined);
  });

  it('records a public Host as public, whatever the request claims', () => {
    assert.deepEqual(deliverySource({ host: 'abc.ngrok-free.app', 'hookbench-source': 'replay' }, 'valid'), { kind: 'public', name: 'abc.ngrok-free.app' });
    assert.deepEqual(deliverySource({ host: 'x.trycloudflare.com:443' }, null), { kind: 'public', name: 'x.trycloudflare.com' });
  });

  it('keeps the header out of the recorded request headers, in any spelling', () => {
    assert.deepEqual(withoutSourceHeader({ 'Hookbench-Source': 'smee', 'X-GitHub-Event': 'push' }), { 'X-GitHub-Event': 'push' });
  });
});

describe('the deliveries log keeps the source', () => {
  it('reads it back after a restart, and drops a planted line whose source is not one Hookbench writes', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-source-'));
    const log = await DeliveryLog.open({ dir });
    const base = {
      time: new Date().toISOString(),
      method: 'POST',
      path: '/webhooks/github',
      requestHeaders: {},
      requestBody: Buffer.from('{}'),
      status: 401,
      responseHeaders: {},
      responseBody: 'Invalid signature',
      durationMs: 1,
      provider: 'github',
      entity: null,
      verification: 'mismatch',
    };
    log.record({ ...base, source: { kind: 'relay', name: 'smee', note: RELAY_REENCODED_NOTE } });
    await log.close();
    const file = fs.readdirSync(dir).find((f) => f.endsWith('.ndjson'))!;
    const planted = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8').trim());
    fs.appendFileSync(
      path.join(dir, file),
      JSON.stringify({ ...planted, id: 'planted-1', source: { kind: 'admin' } }) +
        '\n' +
        JSON.stringify({ ...planted, id: 'planted-2', source: { kind: 'relay', name: 'smee\u001b[31m' } }) +
        '\n',
    );
    const reopened = await DeliveryLog.open({ dir });
    const listed = reopened.list(10);
    await reopened.close();
    assert.equal(listed.length, 1);
    assert.deepEqual(listed[0]!.source, { kind: 'relay', name: 'smee', note: RELAY_REENCODED_NOTE });
  });
});
