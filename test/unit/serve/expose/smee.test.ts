// The smee path end to end: a local relay written from smee.io's protocol, the smee client, and
// the real receiver with the built-in worker. Deliveries arrive once each, in order, at the fixed
// route; a re-encoded body fails its signature and says why; a drop reconnects at once, a gap is
// reported, and ids restarting at 0 on the new connection lose nothing.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { RELAY_REENCODED_NOTE, type DeliverySummary } from '../../../../src/core/contract/deliveries';
import { recording, nullLogger } from '../../../../src/core/log';
import { SmeeClient, createChannel, type DeliveryResult, type Gap } from '../../../../src/core/expose/smeeClient';
import { ExposeError } from '../../../../src/core/expose/errors';
import { schemeFor } from '../../../../src/core/signing';
import { ManualTimers } from '../../helpers/manualTimers';
import { serveDefaultWorker, type Served } from '../../helpers/serveWorker';
import { postToChannel, SmeeRelay } from '../../helpers/smeeRelay';

const SECRET = 'smee test secret';

/** A GitHub delivery signed over exactly these bytes. */
function github(body: string, event = 'issues'): { body: string; headers: Record<string, string>; id: string } {
  const id = randomUUID();
  const signed = schemeFor('github').sign({ secret: SECRET, body: Buffer.from(body) });
  return { body, id, headers: { 'x-github-event': event, 'x-github-delivery': id, 'user-agent': 'GitHub-Hookshot/0a1b2c3', ...signed.headers } };
}

const compact = (n: number) => JSON.stringify({ action: 'opened', issue: { number: n }, repository: { full_name: 'acme/widgets' } });
const pretty = (n: number) => JSON.stringify({ action: 'opened', issue: { number: n }, repository: { full_name: 'acme/widgets' } }, null, 2);

/** Resolves once the log holds `count` deliveries; newest first, like the admin API. */
async function deliveries(served: Served, count: number, ms = 10_000): Promise<DeliverySummary[]> {
  const log = served.server.deliveries;
  if (log.list(1000).length < count) {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`expected ${count} deliveries, got ${log.list(1000).length}`)), ms);
      const sub = log.onDidRecord(() => {
        if (log.list(1000).length < count) return;
        clearTimeout(timer);
        sub.dispose();
        resolve();
      });
    });
  }
  return log.list(1000);
}

describe('hookbench expose smee: relay → client → receiver', () => {
  let served: Served;
  let relay: SmeeRelay;

  before(async () => {
    served = await serveDefaultWorker({ secrets: { GITHUB_WEBHOOK_SECRET: SECRET } });
    relay = await SmeeRelay.start();
  });
  after(async () => {
    await relay.close();
    await served.stop();
  });

  function client(channel: string, options: { retryMs?: number[]; stallMs?: number; timers?: ManualTimers } = {}) {
    const logger = recording(nullLogger);
    const smee = new SmeeClient({ channel, target: new URL('/webhooks/github', served.url), logger, ...options });
    const results: DeliveryResult[] = [];
    const gaps: Gap[] = [];
    smee.onDidDeliver((r) => results.push(r));
    smee.onDidMiss((g) => gaps.push(g));
    return { smee, results, gaps, logger };
  }

  it('subscribes with Accept exactly text/event-stream and forwards a delivery with its headers and query', async () => {
    const channel = relay.channel();
    const { smee, results } = client(channel);
    const before = served.server.deliveries.list(1000).length;
    await smee.start();
    assert.equal(relay.accepts.at(-1), 'text/event-stream');
    const delivery = github(compact(1));
    assert.equal(await postToChannel(`${channel}?source=app&tag=a&tag=b`, delivery.body, delivery.headers), 200);
    const [newest] = await deliveries(served, before + 1);
    await smee.stop();
    assert.equal(newest!.path, '/webhooks/github?source=app&tag=a&tag=b');
    assert.equal(newest!.status, 200);
    assert.equal(newest!.verification, 'valid', 'a compact body is its own re-encoding: the signature holds');
    assert.equal(newest!.requestHeaders['x-github-delivery'], delivery.id);
    assert.equal(newest!.requestHeaders['hookbench-source'], undefined, 'recorded as the source, not as a header');
    assert.deepEqual(newest!.source, { kind: 'relay', name: 'smee' });
    assert.equal(results[0]?.status, 200);
  });

  it('marks a re-encoded body on the delivery: 401, never re-signed, never a silent pass', async () => {
    const channel = relay.channel();
    const { smee, results } = client(channel);
    const before = served.server.deliveries.list(1000).length;
    await smee.start();
    const delivery = github(pretty(2));
    await postToChannel(channel, delivery.body, delivery.headers);
    const [newest] = await deliveries(served, before + 1);
    await smee.stop();
    assert.equal(newest!.status, 401);
    assert.match(newest!.verification ?? '', /^mismatch/);
    assert.equal(newest!.source?.note, RELAY_REENCODED_NOTE);
    assert.equal(newest!.requestHeaders['x-hub-signature-256'], delivery.headers['X-Hub-Signature-256'], "the provider's signature, untouched");
    assert.deepEqual(
      results.map((r) => [r.status, r.bodyState]),
      [[401, 'changed']],
    );
  });

  it('ignores ready and ping events: only messages are deliveries', async () => {
    const channel = relay.channel();
    const { smee, results } = client(channel);
    const before = served.server.deliveries.list(1000).length;
    await smee.start();
    relay.ping();
    relay.ping();
    const delivery = github(compact(3));
    await postToChannel(channel, delivery.body, delivery.headers);
    await deliveries(served, before + 1);
    await smee.stop();
    assert.equal(served.server.deliveries.list(1000).length, before + 1);
    assert.equal(results.length, 1);
  });

  it('reconnects at once after a drop, without waiting for its retry delay', async () => {
    const channel = relay.channel();
    const { smee } = client(channel, { retryMs: [60_000] });
    await smee.start();
    const subscriptions = relay.subscriptions;
    relay.drop();
    await relay.subscribed(subscriptions + 1, 3000);
    await smee.stop();
  });

  it('after a drop: reports the gap, loses what was sent meanwhile, and forwards every later delivery once (ids restart at 0)', async () => {
    const channel = relay.channel();
    const { smee, results, gaps, logger } = client(channel, { retryMs: [100] });
    const start = served.server.deliveries.list(1000).length;
    await smee.start();
    const first = [github(compact(11)), github(compact(12)), github(compact(13))];
    for (const d of first) await postToChannel(channel, d.body, d.headers);
    await deliveries(served, start + 3);

    // smee.io goes away: the stream ends and subscriptions are refused for a while.
    relay.refuse(true);
    const subscriptions = relay.subscriptions;
    const dropped = new Date();
    relay.drop();
    const lost = [github(compact(14)), github(compact(15))];
    for (const d of lost) await postToChannel(channel, d.body, d.headers);
    assert.deepEqual(
      relay.posted.slice(-2).map((p) => p.reached),
      [0, 0],
      'nobody was subscribed: smee.io drops them and answers 200',
    );
    relay.refuse(false);
    await relay.subscribed(subscriptions + 1);

    // The new connection numbers its events from 0 again: 1, 2, 3 were seen before, and must not be skipped.
    const later = [github(compact(16)), github(compact(17)), github(compact(18))];
    for (const d of later) await postToChannel(channel, d.body, d.headers);
    const all = await deliveries(served, start + 6);
    await smee.stop();

    const ids = all
      .slice(0, 6)
      .reverse()
      .map((d) => d.requestHeaders['x-github-delivery']);
    assert.deepEqual(
      ids,
      [...first, ...later].map((d) => d.id),
      'each delivery once, in order; none of the gap',
    );
    assert.equal(results.length, 6);
    assert.equal(gaps.length, 1);
    assert.ok(gaps[0]!.from.getTime() <= dropped.getTime() && gaps[0]!.to.getTime() >= dropped.getTime(), 'the gap covers the time the relay was away');
    assert.ok(logger.lines().some((line) => /dropped.*; reconnecting/.test(line)));
    assert.ok(logger.lines().some((line) => /could not reconnect .*503/.test(line)));
  });

  it('treats a silent stream as dropped and subscribes again', async () => {
    const channel = relay.channel();
    const timers = new ManualTimers();
    const { smee } = client(channel, { stallMs: 300, timers });
    await smee.start();
    const subscriptions = relay.subscriptions;
    await timers.advance(300);
    await relay.subscribed(subscriptions + 1, 3000);
    await smee.stop();
  });

  it('fails the first subscription with one line: a page instead of a stream, an unknown channel, no relay', async () => {
    await assert.rejects(
      client(`${relay.url}/bad%20channel`).smee.start(),
      (error: ExposeError) => error instanceof ExposeError && /no such channel/.test(error.message),
    );
    const closed = await SmeeRelay.start();
    await closed.close();
    await assert.rejects(client(closed.channel()).smee.start(), (error: ExposeError) => error instanceof ExposeError && /ECONNREFUSED/.test(error.message));
    await assert.rejects(
      new SmeeClient({
        channel: relay.channel(),
        target: new URL(served.url),
        logger: nullLogger,
        fetch: (url, init) => fetch(url, { ...init, headers: { accept: 'text/html' } }),
      }).start(),
      (error: ExposeError) => error instanceof ExposeError && /text\/html instead of an event stream/.test(error.message),
    );
  });

  it("creates a channel from the server's /new redirect", async () => {
    const channel = await createChannel(relay.url);
    assert.match(channel, new RegExp(`^${relay.url}/[A-Za-z0-9_-]{16}$`));
  });
});

describe('hookbench expose smee: a stream that sends too much', () => {
  /**
   * A channel whose first connection says ready, then runs `flood` on the response; later ones
   * say ready and stay open. `closed` resolves with the bytes flooded once the client hangs up
   * (or the flood ran out), `resubscribed` once it connects again.
   */
  async function floodingChannel(flood: (write: (text: string) => Promise<boolean>) => Promise<void>) {
    let connections = 0;
    let closedWith: (bytes: number) => void = () => undefined;
    let resubscribedThen: () => void = () => undefined;
    const closed = new Promise<number>((resolve) => (closedWith = resolve));
    const resubscribed = new Promise<void>((resolve) => (resubscribedThen = resolve));
    const server = http.createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write('id: 0\nevent: ready\ndata: {}\n\n');
      if (++connections > 1) return resubscribedThen();
      let sent = 0;
      let open = true;
      res.on('close', () => {
        open = false;
        closedWith(sent);
      });
      /** Writes when the client still listens (waiting for it to drain); false once it hung up. */
      const write = async (text: string): Promise<boolean> => {
        if (!open) return false;
        sent += Buffer.byteLength(text);
        if (!res.write(text)) await new Promise((resolve) => res.once('drain', resolve).once('close', resolve));
        return open;
      };
      void flood(write).then(() => res.end());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const channel = `http://127.0.0.1:${(server.address() as AddressInfo).port}/flood`;
    return { channel, closed, resubscribed, close: () => new Promise((resolve) => (server.close(resolve), server.closeAllConnections())) };
  }

  async function subscribe(channel: string, options: { maxEvent?: number } = {}) {
    const logger = recording(nullLogger);
    const smee = new SmeeClient({ channel, target: new URL('http://127.0.0.1:9/webhooks/github'), logger, retryMs: [60_000], ...options });
    const gaps: Gap[] = [];
    smee.onDidMiss((gap) => gaps.push(gap));
    await smee.start();
    return { smee, logger, gaps };
  }

  it('drops the connection when one event grows past 32 MiB, says why in one line, and subscribes again', async () => {
    const MiB = 1024 * 1024;
    const relay = await floodingChannel(async (write) => {
      // 40 data lines of 1 MiB: an event of 40 MiB, one line at a time.
      for (let i = 0; i < 40; i++) if (!(await write(`data: ${'x'.repeat(MiB)}\n`))) return;
      await write('\n');
    });
    const { smee, logger, gaps } = await subscribe(relay.channel);
    try {
      const sent = await relay.closed;
      assert.ok(sent < 40 * MiB, `the client hung up after ${sent} bytes, before the event ended`);
      await relay.resubscribed;
      assert.ok(
        logger.lines().some((line) => line.includes('dropped (the stream sent an event or a line over 32 MiB); reconnecting')),
        logger.lines().join('\n'),
      );
    } finally {
      await smee.stop();
      await relay.close();
    }
    assert.ok(gaps.length <= 1);
  });

  it('drops the connection on a line that never ends (here past a 1 MiB bound), and subscribes again', async () => {
    const relay = await floodingChannel(async (write) => {
      // A line with no end: 4 MiB of it, unless the client hangs up first.
      if (!(await write('data: '))) return;
      for (let i = 0; i < 256; i++) if (!(await write('y'.repeat(16 * 1024)))) return;
    });
    const { smee, logger } = await subscribe(relay.channel, { maxEvent: 1024 * 1024 });
    try {
      const sent = await relay.closed;
      assert.ok(sent < 4 * 1024 * 1024, `the client hung up after ${sent} bytes`);
      await relay.resubscribed;
      assert.ok(
        logger.lines().some((line) => line.includes('dropped (the stream sent an event or a line over 1 MiB); reconnecting')),
        logger.lines().join('\n'),
      );
    } finally {
      await smee.stop();
      await relay.close();
    }
  });
});
