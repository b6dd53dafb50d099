// The real Stripe CLI (`@stripe/cli`, 1.52.0) run by `hookbench expose stripe`'s code, with its
// API base pointed at a loopback stand-in of Stripe's CLI-session endpoint and WebSocket: it
// prints its real ready line, Hookbench captures the session's signing secret, and an event the
// stand-in pushes reaches the receiver byte-exact, signed with that secret, and is recorded as
// coming through `stripe listen`. No traffic leaves the machine.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import type { DeliverySummary } from '../../../../src/core/contract/deliveries';
import { recording, nullLogger } from '../../../../src/core/log';
import { startStripeListen } from '../../../../src/core/expose/stripeListen';
import { schemeFor } from '../../../../src/core/signing';
import { serveDefaultWorker, type Served } from '../../helpers/serveWorker';

/**
 * The binary `npm test`'s set-up put in the tools cache (scripts/lib/setup.mjs ensureStripeCli:
 * linux-x64 only, the one platform package the registry here serves).
 */
function stripeBinary(): string | undefined {
  const tools = process.env['HOOKBENCH_TOOLS_DIR'] ?? path.join(os.homedir(), '.cache', 'hookbench', 'tools');
  const file = path.join(tools, 'stripe-cli-1.52.0', 'node_modules', '@stripe', `cli-${process.platform}-${process.arch}`, 'bin', 'stripe');
  return fs.existsSync(file) ? file : undefined;
}

/** Stripe's side of `stripe listen`, as the CLI's source reads it: POST /v1/stripecli/sessions, then a WebSocket. */
class StripeStandIn {
  readonly server = http.createServer((req, res) => this.session(req, res));
  readonly wss = new WebSocketServer({ server: this.server });
  readonly forms: URLSearchParams[] = [];
  readonly acks: unknown[] = [];
  socket: Promise<WebSocket>;
  url = '';

  constructor(readonly secret: string) {
    this.socket = new Promise((resolve) =>
      this.wss.on('connection', (ws) => {
        ws.on('message', (data) => this.acks.push(JSON.parse(String(data))));
        resolve(ws);
      }),
    );
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private session(req: http.IncomingMessage, res: http.ServerResponse): void {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      this.forms.push(new URLSearchParams(body));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          websocket_url: `${this.url.replace('http', 'ws')}/subscribe`,
          websocket_id: 'wsid_test',
          websocket_authorized_feature: 'webhook-payloads',
          secret: this.secret,
          reconnect_delay: 3600,
          default_version: '2025-10-29.clover',
          latest_version: '2025-10-29.clover',
          display_connect_filter_warning: false,
        }),
      );
    });
  }

  /** Pushes one event, signed as Stripe signs it for this session. */
  async push(payload: string): Promise<void> {
    const signed = schemeFor('stripe').sign({ secret: this.secret, body: Buffer.from(payload) });
    (await this.socket).send(
      JSON.stringify({
        type: 'webhook_event',
        webhook_id: 'wh_test',
        webhook_conversation_id: 'wc_test',
        event_payload: payload,
        http_headers: { ...signed.headers, 'User-Agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)', 'Content-Type': 'application/json; charset=utf-8' },
        endpoint: { api_version: null },
      }),
    );
  }

  async close(): Promise<void> {
    for (const client of this.wss.clients) client.terminate();
    this.wss.close();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const binary = stripeBinary();

describe(
  'hookbench expose stripe: the real Stripe CLI on loopback',
  { skip: binary ? false : `no Stripe CLI binary for ${process.platform}-${process.arch} in the tools cache (npm test's set-up installs the linux-x64 one)` },
  () => {
    const secret = `whsec_${randomBytes(16).toString('hex')}`;
    let served: Served;
    let stripe: StripeStandIn;
    let bin: string;

    before(async () => {
      served = await serveDefaultWorker({ secrets: { STRIPE_WEBHOOK_SECRET: secret } });
      stripe = new StripeStandIn(secret);
      await stripe.listen();
      bin = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-stripe-bin-'));
      fs.symlinkSync(binary!, path.join(bin, 'stripe'));
    });
    after(async () => {
      await stripe.close();
      await served.stop();
    });

    it('captures the session secret from the ready line and forwards an event byte-exact, recorded as from stripe', async () => {
      const logger = recording(nullLogger);
      const home = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-stripe-home-'));
      const env = { PATH: bin, HOME: home, STRIPE_API_KEY: 'sk_test_0123456789abcdef', STRIPE_CLI_TELEMETRY_OPTOUT: '1' };
      const listen = await startStripeListen({ to: served.url, env, logger, apiBase: stripe.url, timeoutMs: 30_000 });
      try {
        assert.equal(listen.value, secret);
        assert.equal(stripe.forms[0]?.get('forward_to_url'), `${served.url}/webhooks/stripe`);
        assert.ok(!logger.lines().some((line) => line.includes(secret)), 'the secret never reaches the log');

        const payload = JSON.stringify(
          {
            id: 'evt_1Stand1n',
            object: 'event',
            type: 'customer.created',
            data: { object: { id: 'cus_Stand1n', object: 'customer', customer: 'cus_Stand1n' } },
          },
          null,
          2,
        );
        const recorded = new Promise<DeliverySummary>((resolve) => served.server.deliveries.onDidRecord(resolve));
        await stripe.push(payload);
        const delivery = await recorded;
        assert.equal(delivery.path, '/webhooks/stripe');
        assert.equal(delivery.status, 200);
        assert.equal(delivery.verification, 'valid');
        assert.deepEqual(delivery.source, { kind: 'relay', name: 'stripe' });
        assert.equal(served.server.deliveries.get(delivery.id)!.requestBody.toString('utf8'), payload, 'stripe listen forwards the bytes Stripe signed');
      } finally {
        await listen.stop();
      }
      assert.match(await listen.exited, /SIGTERM|code/);
    });
  },
);
