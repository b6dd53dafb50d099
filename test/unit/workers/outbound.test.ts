// The built-in worker forwards stored events: signed JSON to OUTBOUND_WEBHOOK_URL and a chat line
// to CHAT_WEBHOOK_URL; another Hookbench's sink captures them and checks the signature.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Capture } from '../../../src/core/contract/sink';
import { serveDefaultWorker } from '../helpers/serveWorker';
import { githubPush, SECRETS } from './payloads';

describe('outbound webhooks from the built-in worker', () => {
  it('are captured by the sink, byte for byte, with X-Signature verified', async () => {
    const sinkSecret = 'shared-outbound-secret';
    const sink = await serveDefaultWorker({ sinkSecret });
    const worker = await serveDefaultWorker({
      secrets: { ...SECRETS, OUTBOUND_WEBHOOK_SECRET: sinkSecret },
      settings: { outboundUrl: `${sink.url}/__hookbench/sink/forward`, chatUrl: `${sink.url}/__hookbench/sink/chat` },
    });
    try {
      const captures: Capture[] = [];
      const both = new Promise<void>((resolve) => {
        sink.server.sink.onDidCapture((capture) => {
          captures.push(capture);
          if (captures.length === 2) resolve();
        });
      });
      const delivery = githubPush('Acme/Out', 'out-1');
      assert.equal((await fetch(`${worker.url}/webhooks/github`, { method: 'POST', body: delivery.body, headers: delivery.headers })).status, 200);
      await both;
      const forward = captures.find((c) => c.sink === 'forward')!;
      const chat = captures.find((c) => c.sink === 'chat')!;
      assert.equal(forward.verification, 'valid');
      assert.deepEqual(JSON.parse(forward.body).event.id, 'out-1');
      assert.equal(JSON.parse(forward.body).entity, 'acme-out');
      assert.equal(chat.body, '{"text":"acme-out: zoe pushed 2 commits to main"}');
      assert.match(chat.verification ?? '', /^missing_header/);
    } finally {
      await worker.stop();
      await sink.stop();
    }
  });
});
