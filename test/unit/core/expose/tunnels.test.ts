// ngrok, Cloudflare quick tunnels and `stripe listen` up to the network: the arguments Hookbench
// gives them, what they really print (recorded output, test/fixtures/expose/README.md), and the
// one line a missing binary, a missing token or a refused session becomes. The real ngrok library
// runs against a loopback stand-in of its edge, never ngrok's servers.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import {
  cloudflaredArgs,
  explainCloudflared,
  isRegistered,
  quickTunnelUrl,
  startCloudflared,
  CLOUDFLARED_MISSING,
} from '../../../../src/core/expose/cloudflared';
import { ExposeError } from '../../../../src/core/expose/errors';
import { explainNgrok, ngrokConfig, startNgrok, NGROK_MISSING_TOKEN, type NgrokConfig, type NgrokModule } from '../../../../src/core/expose/ngrok';
import {
  explainStripe,
  offersAllSnapshot,
  signingSecretOf,
  startStripeListen,
  stripeListenArgs,
  STRIPE_MISSING,
  STRIPE_NOT_LOGGED_IN,
} from '../../../../src/core/expose/stripeListen';
import { findOnPath, stripAnsi } from '../../../../src/core/expose/binary';
import { nullLogger } from '../../../../src/core/log';

function fixture(name: string): string {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  return fs.readFileSync(path.join(dir, 'test', 'fixtures', 'expose', name), 'utf8');
}
const lines = (text: string) => text.split('\n').map(stripAnsi);
const emptyPath = { PATH: '/nonexistent-hookbench-bin' };

describe('cloudflared quick tunnel', () => {
  it('asks for a quick tunnel to the receiver, without auto-update and without rewriting Host', () => {
    const args = cloudflaredArgs('http://127.0.0.1:8787');
    assert.deepEqual(args, ['tunnel', '--no-autoupdate', '--url', 'http://127.0.0.1:8787']);
    assert.ok(!args.some((a) => /host-header/.test(a)), 'the public Host must reach the receiver: that is what keeps it to webhook routes');
  });

  it('reads the URL from the box and is ready only once a connection is registered', () => {
    const output = lines(fixture('cloudflared-quick-tunnel.stderr.txt'));
    const urls = output.map(quickTunnelUrl).filter(Boolean);
    assert.deepEqual(urls, ['https://moved-plenty-retro-seasons.trycloudflare.com']);
    const box = output.findIndex((l) => quickTunnelUrl(l));
    const registered = output.findIndex(isRegistered);
    assert.ok(registered > box, 'the URL comes first; requests flow after registration');
    assert.equal(output.filter(isRegistered).length, 1);
    assert.equal(quickTunnelUrl('2026-11-22T17:10:02Z INF |  https://evil.example.com/x.trycloudflare.com  |'), undefined);
  });

  it('explains an offline start in one line', () => {
    const message = explainCloudflared(lines(fixture('cloudflared-offline.stderr.txt')), 'code 1');
    assert.match(message, /^cloudflared could not get a quick tunnel from trycloudflare\.com \(failed to request quick Tunnel: .*no such host\)/);
    assert.ok(!message.includes('\n'));
  });

  it('is one clear line when cloudflared is not on the PATH', async () => {
    await assert.rejects(
      startCloudflared({ to: 'http://127.0.0.1:8787', env: emptyPath, logger: nullLogger }),
      (error: ExposeError) => error.code === 'missing-binary' && error.message === CLOUDFLARED_MISSING,
    );
  });
});

describe('stripe listen', () => {
  it('forwards to the Stripe route, names itself for the deliveries log, and adds --all-snapshot only where the CLI has it', () => {
    assert.deepEqual(stripeListenArgs('http://127.0.0.1:8787', { allSnapshot: true }), [
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
    assert.ok(!stripeListenArgs('http://127.0.0.1:8787/', { allSnapshot: false }).includes('--all-snapshot'));
    assert.equal(offersAllSnapshot(fixture('stripe-listen-help-1.52.0.txt')), true, '1.52 requires naming the events');
    assert.equal(offersAllSnapshot(fixture('stripe-listen-help-1.50.11.txt')), false, '1.50 forwards all events and refuses the flag');
    assert.match(fixture('stripe-listen-no-events-1.52.0.stderr.txt'), /must specify events to forward using --events, --all-snapshot/);
    assert.match(fixture('stripe-listen-unknown-flag-1.50.11.stderr.txt'), /unknown flag: --all-snapshot/);
  });

  it('captures the signing secret from the ready line, piped or on a terminal', () => {
    const piped = lines(fixture('stripe-listen-ready-1.52.0.stderr.txt'));
    assert.deepEqual(piped.map(signingSecretOf).filter(Boolean), ['whsec_testsecret123']);
    const terminal =
      '> Ready! You are using Stripe API Version [2025-10-29.clover]. Your webhook signing secret is \x1b[1mwhsec_0a1B2c3D4e5F\x1b[0m (^C to quit)';
    assert.equal(signingSecretOf(stripAnsi(terminal)), 'whsec_0a1B2c3D4e5F');
    assert.equal(lines(fixture('stripe-listen-events-1.52.0.stdout.txt')).map(signingSecretOf).filter(Boolean).length, 0);
  });

  it('explains a CLI that is not logged in, and a failed authentication, in one line', () => {
    assert.equal(explainStripe(lines(fixture('stripe-listen-not-configured-1.52.0.stderr.txt')), 'code 1'), STRIPE_NOT_LOGGED_IN);
    const offline = explainStripe(lines(fixture('stripe-listen-offline-1.52.0.stderr.txt')), 'code 1');
    assert.equal(
      offline,
      'stripe listen exited (code 1): Error while authenticating with Stripe: Post "https://api.stripe.com/v1/stripecli/sessions": dial tcp: lookup api.stripe.com on 10.255.255.53:53: no such host',
    );
  });

  it('is one clear line when stripe is not on the PATH', async () => {
    await assert.rejects(
      startStripeListen({ to: 'http://127.0.0.1:8787', env: emptyPath, logger: nullLogger }),
      (error: ExposeError) => error.code === 'missing-binary' && error.message === STRIPE_MISSING,
    );
  });
});

describe('ngrok', () => {
  it('forwards to the receiver with the token given, and rewrites no Host', () => {
    const config = ngrokConfig('http://127.0.0.1:8787', 'tok');
    assert.deepEqual(config, { addr: 'http://127.0.0.1:8787', authtoken: 'tok', forwards_to: 'hookbench receiver' });
    assert.ok(!('host_header' in config) && !('request_header_add' in config));
  });

  it('is one clear line without NGROK_AUTHTOKEN, before the library is even loaded', async () => {
    let loaded = false;
    const load = async () => {
      loaded = true;
      return {} as NgrokModule;
    };
    await assert.rejects(
      startNgrok({ to: 'http://127.0.0.1:8787', env: {}, load }),
      (error: ExposeError) => error.code === 'missing-token' && error.message === NGROK_MISSING_TOKEN,
    );
    await assert.rejects(
      startNgrok({ to: 'http://127.0.0.1:8787', env: { NGROK_AUTHTOKEN: '  ' }, load }),
      (error: ExposeError) => error.code === 'missing-token',
    );
    assert.equal(loaded, false);
  });

  it("returns the listener's public URL, and closes it on stop", async () => {
    const seen: NgrokConfig[] = [];
    let closed = 0;
    const module: NgrokModule = {
      forward: async (config) => {
        seen.push(config);
        return { url: () => 'https://ab12-203-0-113-7.ngrok-free.app', close: async () => void closed++ };
      },
    };
    const tunnel = await startNgrok({ to: 'http://127.0.0.1:8787', env: { NGROK_AUTHTOKEN: 'tok' }, load: async () => module });
    assert.equal(tunnel.url, 'https://ab12-203-0-113-7.ngrok-free.app');
    assert.equal(seen[0]?.authtoken, 'tok');
    await tunnel.stop();
    assert.equal(closed, 1);
  });

  it("turns ngrok's refusals into one line that names the token", () => {
    const refused = Object.assign(
      new Error('failed to connect session: authentication failed: The authtoken you specified is properly formed, but it is invalid.\n\nERR_NGROK_107\n'),
      { code: 'ERR_NGROK_107' },
    );
    assert.match(
      explainNgrok(refused).message,
      /^ngrok refused the authtoken \[ERR_NGROK_107\]: failed to connect session: authentication failed: .*Check NGROK_AUTHTOKEN/,
    );
    assert.equal(explainNgrok(refused).code, 'refused');
  });

  it('runs the real @ngrok/ngrok up to the network: a session to a loopback edge that is not ngrok fails in one line', async () => {
    const edge = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => edge.listen(0, '127.0.0.1', resolve));
    const port = (edge.address() as net.AddressInfo).port;
    try {
      await assert.rejects(
        startNgrok({ to: 'http://127.0.0.1:8787', env: { NGROK_AUTHTOKEN: 'not-a-real-token' }, serverAddr: `127.0.0.1:${port}` }),
        (error: ExposeError) =>
          error instanceof ExposeError && /^ngrok could not open a tunnel.*: failed to connect session: tls handshake error$/.test(error.message),
      );
    } finally {
      edge.close();
    }
  });
});

describe('findOnPath', () => {
  it('finds an executable on the PATH and nothing on relative entries', () => {
    assert.equal(findOnPath('node', { PATH: path.dirname(process.execPath) }), process.execPath);
    assert.equal(findOnPath('node', { PATH: '.' }), undefined);
  });
});
