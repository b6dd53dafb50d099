import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { notifyChat, OutboundWebhookError, sendJsonWebhook } from '../../../../src/core/outbound';
import { generic, normalizeHeaders } from '../../../../src/core/signing';

const received: { headers: http.IncomingHttpHeaders; body: Buffer }[] = [];
let server: http.Server;
let base = '';
before(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks) });
      const status = Number(new URL(req.url!, 'http://x').searchParams.get('status') ?? 200);
      res.writeHead(status).end(status === 200 ? 'ok' : 'nope');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((r) => server.close(() => r())));

describe('outbound webhooks', () => {
  it('sends the signed shape: JSON with X-Signature over the exact bytes sent', async () => {
    await sendJsonWebhook(`${base}/hook`, { event: 'deploy', n: 1 }, { secret: 'out-secret' });
    const { headers, body } = received.at(-1)!;
    assert.equal(headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(body.toString()), { event: 'deploy', n: 1 });
    assert.deepEqual(generic.verify({ secret: 'out-secret', body, headers: normalizeHeaders(headers as Record<string, string>) }), { valid: true });
  });

  it('sends the chat shape without a signature when no secret is given', async () => {
    await notifyChat(`${base}/chat`, 'Build passed ✓');
    const { headers, body } = received.at(-1)!;
    assert.equal(body.toString(), '{"text":"Build passed ✓"}');
    assert.equal(headers['x-signature'], undefined);
  });

  it('raises an error carrying the status when the response is not ok', async () => {
    await assert.rejects(
      notifyChat(`${base}/chat?status=503`, 'x'),
      (error: unknown) =>
        error instanceof OutboundWebhookError && error.status === 503 && /failed with status 503/.test(error.message) && error.body === 'nope',
    );
  });
});
