// The built CLI as a user runs it: a real process, stdin in, JSON and an exit code out.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startServe, type ServeProcess } from '../helpers/serveProcess';

const CLI = path.resolve(__dirname, '../../../../dist/cli.js');

function hookbench(args: string[], input: string | Buffer = '', env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [CLI, ...args], { input, env: { PATH: process.env['PATH'] ?? '', ...env }, encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('hookbench sign | verify', () => {
  const body = '{"zoë":"✓"}\r\n';
  const env = { HOOK_SECRET: 'cli secret' };

  for (const provider of ['github', 'stripe', 'slack', 'shopify', 'generic']) {
    it(`${provider}: what sign prints, verify accepts (exit 0)`, () => {
      const signed = hookbench(['sign', '--provider', provider, '--secret-env', 'HOOK_SECRET'], body, env);
      assert.equal(signed.code, 0, signed.stderr);
      const { headers } = JSON.parse(signed.stdout) as { headers: Record<string, string> };
      const checked = hookbench(['verify', '--provider', provider, '--secret-env', 'HOOK_SECRET', '--headers', JSON.stringify(headers)], body, env);
      assert.equal(checked.code, 0, checked.stdout + checked.stderr);
      assert.deepEqual(JSON.parse(checked.stdout), { valid: true });
    });
  }

  it('standard: a fixed id and timestamp sign reproducibly, and --now judges the window', () => {
    const secret = 'whsec_' + Buffer.from('cli key').toString('base64');
    const args = ['--provider', 'standard', '--secret', secret];
    const first = hookbench(['sign', ...args, '--id', 'msg_1', '--timestamp', '1700000000'], body);
    const second = hookbench(['sign', ...args, '--id', 'msg_1', '--timestamp', '1700000000'], body);
    assert.equal(first.stdout, second.stdout);
    const headers = first.stdout.trim();
    assert.equal(hookbench(['verify', ...args, '--headers', headers, '--now', '1700000100'], body).code, 0);
    const late = hookbench(['verify', ...args, '--headers', headers, '--now', '2023-11-14T23:00:00Z'], body);
    assert.equal(late.code, 1);
    assert.equal(JSON.parse(late.stdout).reason, 'stale');
  });

  it('twilio: needs --url, and prints the bodySHA256 URL for a JSON body', () => {
    const missing = hookbench(['sign', '--provider', 'twilio', '--secret', 't'], body);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--url/);
    const signed = JSON.parse(hookbench(['sign', '--provider', 'twilio', '--secret', 't', '--url', 'https://x.test/hook'], body).stdout);
    assert.match(signed.url, /^https:\/\/x\.test\/hook\?bodySHA256=[0-9a-f]{64}$/);
    assert.equal(
      hookbench(['verify', '--provider', 'twilio', '--secret', 't', '--url', signed.url, '--headers', JSON.stringify(signed.headers)], body).code,
      0,
    );
  });

  it('a changed body exits 1 with the reason', () => {
    const signed = hookbench(['sign', '--provider', 'github', '--secret-env', 'HOOK_SECRET'], body, env);
    const result = hookbench(['verify', '--provider', 'github', '--secret-env', 'HOOK_SECRET', '--headers', signed.stdout], body.trim(), env);
    assert.equal(result.code, 1);
    assert.equal(JSON.parse(result.stdout).reason, 'mismatch');
  });

  it('generic: --signature-header, --algorithm, --encoding and --prefix shape the header', () => {
    const args = ['--provider', 'generic', '--secret', 'k', '--signature-header', 'X-Sig', '--algorithm', 'sha1', '--encoding', 'base64', '--prefix', 'sha1='];
    const signed = JSON.parse(hookbench(['sign', ...args], body).stdout);
    assert.match(signed.headers['X-Sig'], /^sha1=[A-Za-z0-9+/]{27}=$/);
    assert.equal(hookbench(['verify', ...args, '--headers', JSON.stringify(signed.headers)], body).code, 0);
  });

  const usageErrors: [string, string[], RegExp][] = [
    ['an unknown provider', ['sign', '--provider', 'gitlab', '--secret', 's'], /unknown provider "gitlab"/],
    ['no secret', ['sign', '--provider', 'github'], /--secret-env NAME/],
    ['an unset secret variable', ['sign', '--provider', 'github', '--secret-env', 'NOPE_NOT_SET'], /NOPE_NOT_SET is not set/],
    ['headers that are not JSON', ['verify', '--provider', 'github', '--secret', 's', '--headers', '{'], /not valid JSON/],
    ['headers that are not strings', ['verify', '--provider', 'github', '--secret', 's', '--headers', '{"a":1}'], /string values/],
    ['an unknown flag', ['sign', '--provider', 'github', '--secret', 's', '--nope'], /Unknown option '--nope'/],
    ['generic flags on another provider', ['sign', '--provider', 'github', '--secret', 's', '--algorithm', 'sha1'], /apply to --provider generic/],
    ['a bad --now', ['verify', '--provider', 'github', '--secret', 's', '--headers', '{}', '--now', 'soon'], /--now must be/],
  ];
  for (const [what, args, message] of usageErrors) {
    it(`${what} is a usage error (exit 2) with a clear message`, () => {
      const result = hookbench(args, body);
      assert.equal(result.code, 2);
      assert.match(result.stderr, message);
    });
  }

  it('never prints the secret', () => {
    const secret = 'do-not-print-me';
    const outputs = [
      hookbench(['sign', '--provider', 'github', '--secret', secret], body),
      hookbench(['verify', '--provider', 'github', '--secret', secret, '--headers', '{"X-Hub-Signature-256":"sha256=00"}'], body),
      hookbench(['verify', '--provider', 'stripe', '--secret', secret, '--headers', '{}'], body),
    ];
    for (const { stdout, stderr } of outputs) assert.ok(!(stdout + stderr).includes(secret));
  });
});

describe('hookbench', () => {
  it('lists its commands with --help and exits 2 on an unknown one', () => {
    assert.match(hookbench(['--help']).stdout, /sign .*\n.*verify/);
    const unknown = hookbench(['frobnicate']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown command "frobnicate"/);
  });
});

describe('hookbench send', () => {
  it('lists templates and refuses an unknown event with a pointer to the list', () => {
    assert.match(hookbench(['send', '--list', '--provider', 'shopify']).stdout, /orders\/create/);
    const unknown = hookbench(['send', '--provider', 'github', '--url', 'http://127.0.0.1:9/x', '--event', 'nope', '--secret', 's']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /no github event "nope" \(hookbench send --list --provider github shows them\)/);
  });

  it('prints the exact signed request with --dry-run', () => {
    const dry = hookbench([
      'send',
      '--provider',
      'stripe',
      '--url',
      'http://127.0.0.1:9/webhooks/stripe',
      '--event',
      'invoice.paid',
      '--entity',
      'cus_42',
      '--secret',
      'whsec_x',
      '--dry-run',
    ]);
    assert.equal(dry.code, 0);
    assert.match(dry.stdout, /^POST http:\/\/127\.0\.0\.1:9\/webhooks\/stripe\n/);
    assert.match(dry.stdout, /Stripe-Signature: t=\d+,v1=[0-9a-f]{64}/);
    assert.match(dry.stdout, /"customer": "cus_42"/);
  });

  it('reports a connection failure clearly and exits 1', async () => {
    // A port that was free a moment ago: nothing listens there now.
    const net = await import('node:net');
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const result = hookbench(['send', '--provider', 'github', '--url', `http://127.0.0.1:${port}/webhooks/github`, '--event', 'push', '--secret', 's']);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /ECONNREFUSED/);
  });
});

describe('hookbench send to the local receiver', () => {
  const env = { GITHUB_WEBHOOK_SECRET: 'send-default-secret' };
  let serve: ServeProcess;
  before(async () => {
    serve = await startServe(['--data', fs.mkdtempSync(path.join(os.tmpdir(), 'hb-send-default-')), '--no-render'], env);
  });
  after(() => serve.stop());

  it('needs no --url or --secret: the receiver (--to) plus the provider route, signed with the provider variable', () => {
    const sent = hookbench(['send', '--provider', 'github', '--event', 'push', '--entity', 'acme/app', '--to', serve.url], '', env);
    assert.equal(sent.code, 0, sent.stdout + sent.stderr);
    assert.match(sent.stdout, /^200 OK in [\d.]+ ms\n/);
    const dry = hookbench(['send', '--provider', 'github', '--event', 'push', '--entity', 'acme/app', '--dry-run'], '', env);
    assert.match(dry.stdout, /^POST http:\/\/127\.0\.0\.1:8787\/webhooks\/github\/acme%2Fapp\n/);
    const unsigned = hookbench(['send', '--provider', 'github', '--event', 'push', '--to', serve.url]);
    assert.equal(unsigned.code, 2);
    assert.match(unsigned.stderr, /no github secret: set GITHUB_WEBHOOK_SECRET in the environment or in --env-file/);
  });

  it('says when the receiver took a delivery as a duplicate', () => {
    const again = ['send', '--provider', 'github', '--event', 'push', '--entity', 'acme/dup', '--to', serve.url, '--header', 'X-GitHub-Delivery: 5f1d3c8e-dup'];
    const first = hookbench(again, '', env);
    assert.equal(first.code, 0, first.stderr);
    assert.doesNotMatch(first.stdout, /duplicate/);
    const second = hookbench(again, '', env);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /^200 OK in [\d.]+ ms — duplicate — not processed again\n/);
  });
});

describe('hookbench output into a pipe that closes early', () => {
  it('stops quietly when the reader has gone (send --list | a reader that reads nothing)', () => {
    // `true` exits without reading: every write of the CLI meets a closed pipe (EPIPE).
    const result = spawnSync('bash', ['-c', `set -o pipefail; "${process.execPath}" "${CLI}" send --list | true`], { encoding: 'utf8' });
    assert.equal(result.stderr, '');
    assert.equal(result.status, 0);
  });
});
