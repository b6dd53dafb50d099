// The extension's side of `hookbench expose`: the real built CLI as a child, its lines read into
// events (forwarding, a new channel, a gap, stripe's secret) and its failures into one message.
// The secret reaches the extension and never its log.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { nullLogger, recording } from '../../../../src/core/log';
import { ExposeProcess } from '../../../../src/vscode/expose/exposeProcess';
import { projectRoot } from '../../helpers/serveWorker';
import { startServe, type ServeProcess } from '../../helpers/serveProcess';
import { postToChannel, SmeeRelay } from '../../helpers/smeeRelay';
import { STAND_IN_SECRET, stripeStandIn } from '../../helpers/stripeStandIn';

const cli = path.join(projectRoot(), 'dist', 'cli.js');
const FIXTURES = path.join(projectRoot(), 'test', 'fixtures', 'expose');

describe('ExposeProcess', () => {
  let serve: ServeProcess;
  let relay: SmeeRelay;

  before(async () => {
    serve = await startServe(['--no-render', '--data', fs.mkdtempSync(path.join(os.tmpdir(), 'hb-expose-process-'))]);
    relay = await SmeeRelay.start();
  });
  after(async () => {
    await relay.close();
    await serve.stop();
  });

  it('resolves with the forwarding line, reports a new smee channel and a gap, and stops quietly', async () => {
    const logger = recording(nullLogger);
    const process_ = new ExposeProcess(logger);
    const channels: string[] = [];
    const missed: string[] = [];
    const exits: (string | undefined)[] = [];
    process_.onDidCreateChannel((c) => channels.push(c));
    process_.onDidMiss((m) => missed.push(m));
    process_.onDidExit((r) => exits.push(r));
    // The channel, as the extension passes it from secret storage: through the environment, never an argument.
    const channel = relay.channel();
    const forwarding = await process_.start({
      cli,
      provider: 'smee',
      to: serve.url,
      env: { PATH: process.env['PATH'] ?? '', HOOKBENCH_SMEE_CHANNEL: channel },
      cwd: os.tmpdir(),
    });
    assert.deepEqual(forwarding, { publicUrl: channel, target: `${serve.url}/webhooks/github` });
    assert.deepEqual(channels, [], 'a given channel is not a new one');

    const gap = new Promise<string>((resolve) => process_.onDidMiss(resolve));
    relay.refuse(true);
    relay.drop();
    await postToChannel(channel, '{}', {});
    relay.refuse(false);
    assert.match(await gap, /^missed deliveries between .* Recent Deliveries/);
    assert.equal(missed.length, 1);

    await process_.stop();
    assert.deepEqual(exits, [undefined], 'a stop asked for is no failure');
    assert.equal(process_.running, false);
    process_.dispose();
  });

  it("hands over stripe listen's secret without logging it", async () => {
    const bin = stripeStandIn(FIXTURES, 30);
    const logger = recording(nullLogger);
    const process_ = new ExposeProcess(logger);
    const secrets: string[] = [];
    process_.onDidGetSecret((s) => secrets.push(s));
    const forwarding = await process_.start({ cli, provider: 'stripe', to: serve.url, env: { PATH: `${bin}:/usr/bin:/bin` }, cwd: os.tmpdir() });
    assert.deepEqual(forwarding, { publicUrl: 'stripe', target: `${serve.url}/webhooks/stripe` });
    assert.deepEqual(secrets, [STAND_IN_SECRET]);
    await process_.stop();
    assert.ok(!logger.lines().some((line) => line.includes(STAND_IN_SECRET)), logger.lines().join('\n'));
    process_.dispose();
  });

  it("rejects with the CLI's one line when the provider cannot start", async () => {
    const process_ = new ExposeProcess(nullLogger);
    await assert.rejects(
      process_.start({ cli, provider: 'ngrok', to: serve.url, env: { PATH: process.env['PATH'] ?? '' }, cwd: os.tmpdir() }),
      /^Error: ngrok needs an authtoken: copy yours from https:\/\/dashboard\.ngrok\.com/,
    );
    process_.dispose();
  });
});
