// `hookbench expose` as a user runs it (the built dist/cli.js): the lines it prints, the exit codes,
// and, for smee, real deliveries through a local relay into a real `hookbench serve`. cloudflared
// and stripe are stand-in scripts on the PATH that print their programs' recorded output
// (test/fixtures/expose) and write down the arguments they were given.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FORWARDING_LINE, MISSED_LINE, NEW_CHANNEL_LINE, SIGNING_SECRET_LINE } from '../../../src/core/contract/expose';
import { schemeFor } from '../../../src/core/signing';
import { projectRoot } from '../helpers/serveWorker';
import { startServe, type ServeProcess } from '../helpers/serveProcess';
import { postToChannel, SmeeRelay } from '../helpers/smeeRelay';

const CLI = path.join(projectRoot(), 'dist', 'cli.js');
const FIXTURES = path.join(projectRoot(), 'test', 'fixtures', 'expose');
const SECRET = 'expose cli secret';

/** `hookbench expose …` running, with its output read line by line. */
class Expose {
  readonly child: ChildProcess;
  readonly lines: string[] = [];
  stderr = '';
  private waiters: (() => void)[] = [];
  readonly exited: Promise<number | string>;

  constructor(args: string[], env: Record<string, string> = {}) {
    this.child = spawn(process.execPath, [CLI, 'expose', ...args], { env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let buffered = '';
    this.child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const parts = buffered.split('\n');
      buffered = parts.pop()!;
      this.lines.push(...parts);
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.child.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString('utf8')));
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  }

  /** The first line matching, waiting up to `ms` for it. */
  async line(pattern: RegExp, ms = 10_000): Promise<RegExpExecArray> {
    const deadline = Date.now() + ms;
    for (;;) {
      for (const line of this.lines) {
        const match = pattern.exec(line);
        if (match) return match;
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no line matching ${pattern} in:\n${this.lines.join('\n')}\nstderr:\n${this.stderr}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  stop(signal: NodeJS.Signals = 'SIGINT'): Promise<number | string> {
    this.child.kill(signal);
    return this.exited;
  }
}

function hookbench(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [CLI, 'expose', ...args], {
    env: { PATH: '/nonexistent-hookbench-bin', ...env },
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function githubDelivery(body: string) {
  return {
    body,
    headers: {
      'x-github-event': 'issues',
      'x-github-delivery': randomUUID(),
      ...schemeFor('github').sign({ secret: SECRET, body: Buffer.from(body) }).headers,
    },
  };
}

/** A folder holding an executable `name` that prints recorded output, for the PATH. */
function standIn(name: string, script: string): { dir: string; argsFile: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `hb-${name}-`));
  const argsFile = path.join(dir, 'args.txt');
  fs.writeFileSync(path.join(dir, name), `#!/bin/sh\n${script.replaceAll('$ARGS_FILE', argsFile).replaceAll('$FIXTURES', FIXTURES)}\n`, { mode: 0o755 });
  return { dir, argsFile };
}

describe('hookbench expose smee', () => {
  let serve: ServeProcess;
  let relay: SmeeRelay;

  before(async () => {
    serve = await startServe(['--no-render', '--data', fs.mkdtempSync(path.join(os.tmpdir(), 'hb-expose-cli-'))], { GITHUB_WEBHOOK_SECRET: SECRET });
    relay = await SmeeRelay.start();
  });
  after(async () => {
    await relay.close();
    await serve.stop();
  });

  it('prints "forwarding <channel> → <route>", one line per delivery (a re-encoded body says so), and exits 0 on SIGINT', async () => {
    const channel = relay.channel();
    const expose = new Expose(['smee', '--channel', channel, '--to', serve.url]);
    try {
      const forwarding = await expose.line(FORWARDING_LINE);
      assert.deepEqual(forwarding.slice(1), [channel, `${serve.url}/webhooks/github`]);
      assert.equal(expose.lines[0], `forwarding ${channel} → ${serve.url}/webhooks/github`, 'the first line, once ready');

      const compact = githubDelivery(JSON.stringify({ action: 'opened', repository: { full_name: 'acme/widgets' } }));
      await postToChannel(channel, compact.body, compact.headers);
      await expose.line(/^200 issues → \/webhooks\/github$/);

      const pretty = githubDelivery(JSON.stringify({ action: 'closed', repository: { full_name: 'acme/widgets' } }, null, 2));
      await postToChannel(channel, pretty.body, pretty.headers);
      await expose.line(/^401 issues → \/webhooks\/github — relayed: body re-encoded by the relay: smee\.io forwards parsed JSON/);
    } finally {
      assert.equal(await expose.stop('SIGINT'), 0);
    }
  });

  it('creates a channel when none is given, says so, and forwards from it', async () => {
    const expose = new Expose(['smee', '--smee-server', relay.url, '--to', serve.url, '--path', '/webhooks-queued/github']);
    try {
      const [, channel] = await expose.line(NEW_CHANNEL_LINE);
      assert.match(channel!, new RegExp(`^${relay.url}/[A-Za-z0-9_-]+$`));
      const forwarding = await expose.line(FORWARDING_LINE);
      assert.deepEqual(forwarding.slice(1), [channel, `${serve.url}/webhooks-queued/github`]);
    } finally {
      assert.equal(await expose.stop('SIGTERM'), 0);
    }
  });

  it('after a drop, prints the missed-deliveries line with how to redeliver', async () => {
    const channel = relay.channel();
    const expose = new Expose(['smee', '--channel', channel, '--to', serve.url]);
    try {
      await expose.line(FORWARDING_LINE);
      relay.refuse(true);
      relay.drop();
      const lost = githubDelivery(JSON.stringify({ action: 'lost', repository: { full_name: 'acme/widgets' } }));
      await postToChannel(channel, lost.body, lost.headers);
      relay.refuse(false);
      const [, from, to, advice] = await expose.line(MISSED_LINE);
      assert.ok(Date.parse(from!) <= Date.parse(to!));
      assert.match(advice!, /GitHub's Recent Deliveries .*Redeliver/);
      assert.match(advice!, /Stripe's resend/);
      assert.ok(!expose.lines.some((line) => /lost/.test(line)), 'what was sent during the gap never arrives');
    } finally {
      assert.equal(await expose.stop('SIGINT'), 0);
    }
  });

  it('fails in one line when the channel is not a smee channel', async () => {
    // Not spawnSync: the relay answers from this process.
    const expose = new Expose(['smee', '--channel', `${relay.url}/no%20such`, '--to', serve.url]);
    assert.equal(await expose.exited, 1);
    assert.deepEqual(expose.lines, []);
    assert.match(expose.stderr, /^hookbench expose smee: .*answered no such channel: give a smee channel URL/);
    assert.equal(expose.stderr.trim().split('\n').length, 1);
  });
});

describe('hookbench expose cloudflared | stripe | ngrok', () => {
  it('cloudflared: runs a quick tunnel to the receiver and prints the trycloudflare URL once registered', async () => {
    const { dir, argsFile } = standIn('cloudflared', 'printf "%s\\n" "$@" > $ARGS_FILE\ncat $FIXTURES/cloudflared-quick-tunnel.stderr.txt >&2\nexec sleep 30');
    const expose = new Expose(['cloudflared', '--to', 'http://127.0.0.1:8787'], { PATH: `${dir}:/usr/bin:/bin` });
    try {
      const forwarding = await expose.line(FORWARDING_LINE);
      assert.deepEqual(forwarding.slice(1), ['https://moved-plenty-retro-seasons.trycloudflare.com', 'http://127.0.0.1:8787']);
      await expose.line(/webhooks\/github.*only \/webhooks\/ routes answer the public host/);
      assert.deepEqual(fs.readFileSync(argsFile, 'utf8').trim().split('\n'), ['tunnel', '--no-autoupdate', '--url', 'http://127.0.0.1:8787']);
    } finally {
      assert.equal(await expose.stop('SIGINT'), 0);
    }
  });

  it('cloudflared: Ctrl+C while it starts stops it too, and exits 0', async () => {
    const { dir, argsFile } = standIn('cloudflared', 'echo $$ > $ARGS_FILE\nexec sleep 30');
    // The stand-in writes its pid once it runs, into a named pipe the test reads: it arrives as it is written.
    assert.equal(spawnSync('mkfifo', [argsFile]).status, 0);
    const written = new Promise<string>((resolve, reject) => {
      let text = '';
      fs.createReadStream(argsFile, 'utf8')
        .on('data', (chunk) => (text += chunk))
        .on('end', () => resolve(text))
        .on('error', reject);
    });
    const expose = new Expose(['cloudflared'], { PATH: `${dir}:/usr/bin:/bin` });
    // A stand-in that never runs: after 10 s the test writes nothing into the pipe itself, which ends the read.
    const never = setTimeout(() => fs.writeFileSync(argsFile, ''), 10_000);
    const pid = Number(await written);
    clearTimeout(never);
    assert.ok(pid > 0, 'the cloudflared stand-in did not start');
    assert.equal(await expose.stop('SIGINT'), 0);
    assert.throws(() => process.kill(pid, 0), /ESRCH/, 'the tunnel program is gone with it');
  });

  it('cloudflared: one line and exit 1 when it ends before a tunnel is up', () => {
    const { dir } = standIn('cloudflared', 'cat $FIXTURES/cloudflared-offline.stderr.txt >&2\nexit 1');
    const result = hookbench(['cloudflared'], { PATH: `${dir}:/usr/bin:/bin` });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^hookbench expose cloudflared: cloudflared could not get a quick tunnel from trycloudflare\.com/m);
  });

  it("stripe: runs stripe listen to the Stripe route and prints the session's signing secret and how to pass it", async () => {
    const { dir, argsFile } = standIn(
      'stripe',
      'if [ "$2" = "--help" ]; then cat $FIXTURES/stripe-listen-help-1.52.0.txt; exit 0; fi\nprintf "%s\\n" "$@" > $ARGS_FILE\ncat $FIXTURES/stripe-listen-ready-1.52.0.stderr.txt >&2\nexec sleep 30',
    );
    const expose = new Expose(['stripe', '--to', 'http://127.0.0.1:8787'], { PATH: `${dir}:/usr/bin:/bin` });
    try {
      const [, secret] = await expose.line(SIGNING_SECRET_LINE);
      assert.equal(secret, 'whsec_testsecret123');
      await expose.line(/STRIPE_WEBHOOK_SECRET=whsec_testsecret123 hookbench serve/);
      const forwarding = await expose.line(FORWARDING_LINE);
      assert.deepEqual(forwarding.slice(1), ['stripe', 'http://127.0.0.1:8787/webhooks/stripe']);
      assert.deepEqual(fs.readFileSync(argsFile, 'utf8').trim().split('\n'), [
        'listen',
        '--forward-to',
        'http://127.0.0.1:8787/webhooks/stripe',
        '--headers',
        'hookbench-source:stripe',
        '--all-snapshot',
        '--skip-update',
        '--color',
        'off',
      ]);
      assert.ok(!expose.stderr.includes('whsec_testsecret123'), 'the secret is on standard output only, never in the log');
    } finally {
      assert.equal(await expose.stop('SIGINT'), 0);
    }
  });

  it('stripe: not logged in is one line that says to run stripe login', () => {
    const { dir } = standIn(
      'stripe',
      'if [ "$2" = "--help" ]; then cat $FIXTURES/stripe-listen-help-1.52.0.txt; exit 0; fi\ncat $FIXTURES/stripe-listen-not-configured-1.52.0.stderr.txt >&2\nexit 1',
    );
    const result = hookbench(['stripe'], { PATH: `${dir}:/usr/bin:/bin` });
    assert.equal(result.code, 1);
    assert.equal(
      result.stderr.trim(),
      'hookbench expose stripe: the Stripe CLI is not logged in: run stripe login once in a terminal (or set STRIPE_API_KEY to a test-mode key), then try again',
    );
  });

  const missing: [string, string[], RegExp][] = [
    [
      'cloudflared not on the PATH',
      ['cloudflared'],
      /^hookbench expose cloudflared: cloudflared is not on the PATH: install it \(https:\/\/developers\.cloudflare\.com\/.*\), or use hookbench expose smee/,
    ],
    [
      'stripe not on the PATH',
      ['stripe'],
      /^hookbench expose stripe: the Stripe CLI \(stripe\) is not on the PATH: install it with npm install -g @stripe\/cli/,
    ],
    [
      'no NGROK_AUTHTOKEN',
      ['ngrok'],
      /^hookbench expose ngrok: ngrok needs an authtoken: copy yours from https:\/\/dashboard\.ngrok\.com\/get-started\/your-authtoken into NGROK_AUTHTOKEN/,
    ],
  ];
  for (const [what, args, message] of missing) {
    it(`${what}: exit 1, one line on standard error, nothing on standard output`, () => {
      const result = hookbench(args);
      assert.equal(result.code, 1);
      assert.equal(result.stdout, '');
      assert.equal(result.stderr.trim().split('\n').length, 1);
      assert.match(result.stderr, message);
    });
  }

  const usage: [string, string[], RegExp][] = [
    ['no provider', [], /name a provider: smee, ngrok, cloudflared, stripe/],
    ['an unknown provider', ['localtunnel'], /unknown provider "localtunnel"/],
    ['a route outside the webhook routes', ['smee', '--channel', 'https://smee.io/abc', '--path', '/__hookbench/instances'], /webhook routes only/],
    ['an agents route', ['smee', '--channel', 'https://smee.io/abc', '--path', '/agents/webhook-agent/x'], /webhook routes only/],
    ['a --to with a path', ['ngrok', '--to', 'http://127.0.0.1:8787/webhooks/github'], /the receiver's base URL/],
    ['--channel for a tunnel', ['cloudflared', '--channel', 'https://smee.io/abc'], /--channel and --path apply to smee/],
  ];
  for (const [what, args, message] of usage) {
    it(`${what} is a usage error (exit 2)`, () => {
      const result = hookbench(args);
      assert.equal(result.code, 2);
      assert.match(result.stderr, message);
    });
  }
});
