// The receiver controller's smaller parts: the status bar's look for each state, the secrets a
// receiver runs with, which worker file restarts it, and who holds the data folder.
import '../../helpers/vscodeShim';
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { folderInUseMessage } from '../../../../src/core/contract/serveHandshake';
import { nullLogger, recording } from '../../../../src/core/log';
import { liveHolder, liveServeAfter } from '../../../../src/vscode/receiver/dataFolderHolder';
import { statusLook } from '../../../../src/vscode/receiver/receiverStatus';
import { ServeSecrets } from '../../../../src/vscode/receiver/serveSecrets';
import { restartReason } from '../../../../src/vscode/receiver/workerFiles';

describe('the receiver’s status bar', () => {
  it('shows the port while running, and says restricted mode in an untrusted folder', () => {
    const trusted = statusLook({ kind: 'running', url: 'http://127.0.0.1:8787' }, true);
    const restricted = statusLook({ kind: 'running', url: 'http://127.0.0.1:8787' }, false);
    assert.deepEqual([trusted.text, trusted.markdown, trusted.error], ['$(radio-tower) Hookbench :8787', true, false]);
    assert.doesNotMatch(trusted.tooltip, /Restricted mode/);
    assert.match(restricted.tooltip, /Restricted mode/);
  });

  it('names the pid of a serve it is attached to', () => {
    const look = statusLook({ kind: 'running', url: 'http://127.0.0.1:8787', attached: { pid: 42, origin: 'from a terminal' } }, true);
    assert.equal(look.text, '$(plug) Hookbench :8787 · attached to pid 42');
  });

  it('marks a failure as an error with serve’s message, and a stop with its note', () => {
    assert.deepEqual(statusLook({ kind: 'failed', message: 'port 8787 in use' }, true), {
      text: '$(error) Hookbench',
      tooltip: 'Hookbench receiver failed: port 8787 in use',
      markdown: false,
      error: true,
    });
    assert.equal(statusLook({ kind: 'stopped', note: 'detached' }, true).tooltip, 'Hookbench: detached');
    assert.equal(statusLook({ kind: 'stopped' }, true).tooltip, 'Hookbench receiver is stopped');
  });
});

describe('the secrets a receiver runs with', () => {
  it('puts this session’s secrets over the stored ones, and tells a change since the launch', async () => {
    let stored: Record<string, string> = { GITHUB_WEBHOOK_SECRET: 'stored' };
    const secrets = new ServeSecrets({ asEnvironment: async () => stored });
    assert.deepEqual(await secrets.forLaunch(), { GITHUB_WEBHOOK_SECRET: 'stored' });
    assert.equal(await secrets.changedSinceLaunch(), false);
    secrets.setSession('STRIPE_WEBHOOK_SECRET', 'whsec_session');
    assert.equal(await secrets.changedSinceLaunch(), true);
    assert.deepEqual(await secrets.forLaunch(), { GITHUB_WEBHOOK_SECRET: 'stored', STRIPE_WEBHOOK_SECRET: 'whsec_session' });
    secrets.setSession('STRIPE_WEBHOOK_SECRET', undefined);
    stored = { GITHUB_WEBHOOK_SECRET: 'stored', STRIPE_WEBHOOK_SECRET: 'whsec_session' };
    assert.equal(await secrets.changedSinceLaunch(), false, 'the same secrets, now stored: no restart');
  });
});

describe('which worker file restarts the receiver', () => {
  const config = path.join('/ws', 'wrangler.jsonc');
  const launched = { flags: JSON.stringify(['--config', config]), config };

  it('restarts it when the workspace’s worker changed', () => {
    assert.equal(restartReason('/ws/other/wrangler.toml', launched, '[]', 'other/wrangler.toml'), "the workspace's worker changed (other/wrangler.toml)");
  });

  it('restarts it for its own config and the secrets beside it, not for another folder’s', () => {
    assert.equal(restartReason(config, launched, launched.flags, 'wrangler.jsonc'), 'wrangler.jsonc changed');
    assert.equal(restartReason(path.join('/ws', '.dev.vars'), launched, launched.flags, '.dev.vars'), '.dev.vars changed');
    assert.equal(restartReason('/ws/sub/.dev.vars', launched, launched.flags, 'sub/.dev.vars'), undefined);
  });
});

describe('who holds the data folder', () => {
  const folders: string[] = [];
  afterEach(() => folders.splice(0).forEach((folder) => fs.rmSync(folder, { recursive: true, force: true })));
  const dataFolder = () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-holder-'));
    folders.push(folder);
    return folder;
  };

  it('lets this window start its own serve in a folder nobody holds', async () => {
    const logger = recording(nullLogger);
    assert.equal(await liveHolder(dataFolder(), logger), undefined);
    assert.deepEqual(logger.lines(), []);
  });

  it('gives back a failed start’s own error when no live serve explains it', async () => {
    const data = dataFolder();
    const other = new Error('worker failed to build');
    await assert.rejects(liveServeAfter(other, data), (error) => error === other);
    // Another serve held the folder at the start, and holds nothing now: the start's error stands.
    const inUse = new Error(folderInUseMessage(data, 999_999, path.join(data, 'serve.lock')));
    await assert.rejects(liveServeAfter(inUse, data), (error) => error === inUse);
  });
});
