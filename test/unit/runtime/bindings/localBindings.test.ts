import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { RateLimiter } from '../../../../src/runtime/bindings/rateLimit';
import { AnalyticsEngineDataset } from '../../../../src/runtime/bindings/analyticsEngine';
import { EmailMessage, SendEmail } from '../../../../src/runtime/bindings/sendEmail';
import { encodeName } from '../../../../src/runtime/storage/names';
import type { Logger } from '../../../../src/core/log';

function recordingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const keep = (message: string | Error) => void lines.push(String(message));
  return { logger: { trace: keep, debug: keep, info: keep, warn: keep, error: keep }, lines };
}

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'hb-local-bindings-'));

describe("ratelimits: Miniflare's local rate limiter", () => {
  it('allows `limit` calls per key in a window aligned to the clock, then refuses until the next window', async () => {
    let now = 60_000 * 1000 + 5_000;
    const limiter = new RateLimiter({ binding: 'RL', namespaceId: '1', limit: 2, period: 60 }, () => now);
    const calls = async (key: string, n: number) => Promise.all(Array.from({ length: n }, () => limiter.limit({ key }).then((r) => r.success)));
    assert.deepEqual(await calls('a', 3), [true, true, false]);
    assert.deepEqual(await calls('b', 1), [true], 'each key counts on its own');
    now += 54_999;
    assert.deepEqual(await calls('a', 1), [false], 'still the same window');
    now += 1;
    assert.deepEqual(await calls('a', 2), [true, true], 'a new window starts at the minute');
  });

  it("takes a limit and period per call and rejects bad options with Miniflare's messages", async () => {
    const limiter = new RateLimiter({ binding: 'RL', namespaceId: '1', limit: 1, period: 10 }, () => 0);
    assert.deepEqual(await limiter.limit({ key: 'k', limit: 5, period: 60 }), { success: true });
    await assert.rejects(limiter.limit(undefined), /^Error: invalid rate limit options$/);
    await assert.rejects(limiter.limit({ key: 1 }), /invalid key: 1/);
    await assert.rejects(limiter.limit({ nope: 1 }), /bad rate limit options: \[nope\]/);
    await assert.rejects(limiter.limit({ key: 'k', period: 30 }), /unsupported period: 30/);
    await assert.rejects(limiter.limit({ key: 'k', limit: 'x' }), /limit must be a number: x/);
  });
});

describe('analytics_engine_datasets: data points kept in the data folder', () => {
  it('appends one JSON line per point and logs it, never throwing', () => {
    const dir = tmp();
    const { logger, lines } = recordingLogger();
    const dataset = new AnalyticsEngineDataset({ binding: 'AE', dataset: 'hits' }, dir, logger, () => Date.UTC(2026, 0, 2));
    assert.equal(dataset.writeDataPoint({ blobs: ['acme', new Uint8Array([1, 2])], doubles: [12.5], indexes: ['acme'] }), undefined);
    dataset.writeDataPoint();
    const file = path.join(dir, '_bindings', 'analytics_engine', encodeName('hits'), 'data-points.jsonl');
    const points = fs
      .readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as unknown);
    assert.deepEqual(points, [
      { time: '2026-01-02T00:00:00.000Z', blobs: ['acme', { base64: 'AQI=' }], doubles: [12.5], indexes: ['acme'] },
      { time: '2026-01-02T00:00:00.000Z', blobs: [], doubles: [], indexes: [] },
    ]);
    assert.match(lines[0]!, /^\[analytics\] AE \(hits\) data point: \{"time"/);
  });
});

describe('send_email: messages written to files, as wrangler dev does', () => {
  const raw = (from: string, extra = '') => `From: Ops <${from}>\r\nTo: ops@example.com\r\nSubject: hi\r\n${extra}\r\nbody\r\n`;

  it("writes a raw message to an .eml file, logs its path and answers a message id on the sender's domain", async () => {
    const dir = tmp();
    const { logger, lines } = recordingLogger();
    const mail = new SendEmail({ binding: 'MAIL' }, dir, logger);
    const sent = await mail.send(new EmailMessage('a@example.com', 'ops@example.com', raw('a@example.com', 'Message-ID: <1@example.com>\r\n')));
    assert.match(sent.messageId, /^<[A-Za-z0-9]{36}@example\.com>$/);
    const file = /\n {2}(.*\.eml)$/.exec(lines[0]!)?.[1] ?? '';
    assert.ok(file.startsWith(path.join(dir, '_bindings', 'email', 'email')), lines[0]);
    assert.equal(fs.readFileSync(file, 'utf8'), raw('a@example.com', 'Message-ID: <1@example.com>\r\n'));
  });

  it('refuses what Miniflare refuses, with its messages', async () => {
    const mail = new SendEmail(
      { binding: 'MAIL', allowedDestinationAddresses: ['ops@example.com'], allowedSenderAddresses: ['a@example.com'] },
      tmp(),
      recordingLogger().logger,
    );
    await assert.rejects(mail.send(new EmailMessage('a@example.com', 'ops@example.com', raw('a@example.com'))), /^Error: invalid message-id$/);
    await assert.rejects(
      mail.send(new EmailMessage('a@example.com', 'ops@example.com', raw('b@example.com', 'Message-ID: <1@x>\r\n'))),
      /From: header does not match mail from/,
    );
    await assert.rejects(
      mail.send(new EmailMessage('a@example.com', 'ops@example.com', raw('a@example.com', 'Message-ID: <1@x>\r\nReceived: by x\r\n'))),
      /invalid headers set/,
    );
    await assert.rejects(mail.send(new EmailMessage('a@example.com', 'eve@example.com', raw('a@example.com'))), /email to eve@example.com not allowed/);
    await assert.rejects(mail.send({ from: 'z@example.com', to: 'ops@example.com', subject: 's' }), /email from z@example.com not allowed/);
  });

  it("writes a message builder's text and html and logs the headers", async () => {
    const dir = tmp();
    const { logger, lines } = recordingLogger();
    await new SendEmail({ binding: 'MAIL' }, dir, logger).send({
      from: { name: 'Ops', email: 'a@example.com' },
      to: ['b@example.com'],
      subject: 'Large delivery',
      text: 'hello',
      html: '<p>hello</p>',
    });
    assert.match(
      lines[0]!,
      /^\[email\] send_email binding called with MessageBuilder:\nFrom: "Ops" <a@example\.com>\nTo: b@example\.com\nSubject: Large delivery\n\nText: .*\.txt\nHTML: .*\.html$/,
    );
    const text = /Text: (.*)\n/.exec(lines[0]!)![1]!;
    assert.equal(fs.readFileSync(text, 'utf8'), 'hello');
  });

  it('keeps an attachment inside the data folder whatever its name says', async () => {
    const dir = tmp();
    const { logger, lines } = recordingLogger();
    const hostile = 'invoice./../../../../../../../../tmp/hookbench-escaped';
    await new SendEmail({ binding: 'MAIL' }, path.join(dir, 'data'), logger).send({
      from: 'a@example.com',
      to: 'b@example.com',
      subject: 'x',
      text: 'x',
      attachments: [
        { disposition: 'attachment', filename: hostile, content: 'payload' },
        { disposition: 'attachment', filename: 'report.pdf', content: '%PDF' },
      ],
    });
    const stored = [...lines.join('\n').matchAll(/ -> (.*)$/gm)].map((m) => m[1]!);
    assert.equal(stored.length, 2);
    for (const file of stored) assert.ok(path.resolve(file).startsWith(path.join(dir, 'data', '_bindings', 'email') + path.sep), file);
    assert.match(stored[0]!, /\.bin$/);
    assert.match(stored[1]!, /\.pdf$/);
    assert.equal(fs.readFileSync(stored[0]!, 'utf8'), 'payload');
  });
});
