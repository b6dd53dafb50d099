// VS Code on a folder where `hookbench serve` already runs in a terminal (issue 28): the views
// attach to that serve instead of starting one of their own, the status bar and the views say
// which serve and where it runs, its instances show, it is never stopped; its Ctrl+C in the
// terminal shows as a stopped receiver with Start Receiver, and this window's own starts again.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { isRunning } from '../../src/core/childProcess';
import { parseServeLock, serveLockFile, type ServeLock } from '../../src/core/contract/serveLock';
import { schemeFor } from '../../src/core/signing';
import { STAND_IN_SECRET, stripeStandIn } from '../unit/helpers/stripeStandIn';
import { api, startReceiver, until } from './helpers';
import { readWorkbench, requestScreenshot } from './reporter';
import { collapseAgents, untilRows } from './treeViews';

const SECRET = 'attach-secret';
const statusBarText = `[...document.querySelectorAll('.statusbar-item')].map((item) => item.textContent).join(' | ')`;
const viewMessages = `[...document.querySelectorAll('.pane-body .message')].map((item) => item.textContent).join(' | ')`;
const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/** The data folder's lock once it names a listening serve. */
async function listeningLock(data: string): Promise<ServeLock> {
  const read = () => {
    try {
      return parseServeLock(fs.readFileSync(serveLockFile(data), 'utf8'));
    } catch {
      return undefined;
    }
  };
  return (await until(read, (lock) => lock?.admin !== undefined, 'no serve listened in the terminal', 60_000))!;
}

describe('attach to the receiver the user already runs', () => {
  after(collapseAgents);

  it("shows a terminal's hookbench serve in the views, names it in the status bar, never stops it, and says when Ctrl+C stops it", async function () {
    this.timeout(180_000);
    const hookbench = await api();
    await vscode.commands.executeCommand('hookbench.receiver.stop');
    const data = hookbench.receiver.dataFolder;
    const cli = path.join(vscode.extensions.getExtension('hookbench.hookbench')!.extensionPath, 'dist', 'cli.js');
    // Typed in a terminal, as the user did: the workspace's data folder, a port of its own.
    const terminal = vscode.window.createTerminal({ name: 'hookbench serve', cwd: vscode.workspace.workspaceFolders![0]!.uri.fsPath });
    terminal.show();
    terminal.sendText(`GITHUB_WEBHOOK_SECRET=${SECRET} ${quote(process.execPath)} ${quote(cli)} serve --data ${quote(data)} --port 0 --no-render`);
    try {
      const { pid, admin } = await listeningLock(data);
      const url = `http://${admin!}`;
      const body = JSON.stringify({ ref: 'refs/heads/main', repository: { full_name: 'Acme/Attach' }, pusher: { name: 'ana' }, commits: [] });
      const { headers } = schemeFor('github').sign({ secret: SECRET, body: Buffer.from(body) });
      const sent = await fetch(`${url}/webhooks/github`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': 'attach-1' },
        body,
      });
      assert.equal(sent.status, 200, await sent.text());

      // Start Receiver, as the title bar's button: it attaches instead of starting a second serve.
      assert.equal(await vscode.commands.executeCommand('hookbench.receiver.start'), url);
      await untilRows('Agents', ['webhook-agent'], (rows) => rows.some((row) => row.label === 'acme-attach'));
      const status = await readWorkbench<string>(statusBarText, `(${statusBarText}).includes('attached to pid ${pid}')`);
      assert.match(status, new RegExp(`Hookbench :${new URL(url).port} · attached to pid ${pid}`));
      const message = await readWorkbench<string>(viewMessages, `(${viewMessages}).includes('pid ${pid}')`);
      assert.match(message, new RegExp(`Attached to the hookbench serve of pid ${pid} in a terminal \\(\\w+\\)\\. Stop detaches; it keeps running\\.`));
      await requestScreenshot('attached-terminal-serve', vscode.extensions.getExtension('hookbench.hookbench')!.extensionPath);
      // A secret set here never reaches the terminal's serve: the user is told so, and what to do.
      await vscode.commands.executeCommand('hookbench.secret.set', 'STRIPE_WEBHOOK_SECRET', 'whsec_attach');
      // Read in the notifications center: the newest VS Code under test shows it there without a toast.
      await vscode.commands.executeCommand('notifications.showList');
      const listed = `[...document.querySelectorAll('.notifications-center .notification-list-item-message')].map((m) => m.textContent).join('\\n')`;
      const warned = await readWorkbench<string>(listed, `(${listed}).includes('keeps the secrets it was started with')`);
      await vscode.commands.executeCommand('notifications.hideList');
      assert.match(
        warned,
        new RegExp(
          `STRIPE_WEBHOOK_SECRET is saved, but this will not reach the attached receiver on :${new URL(url).port} \\(the hookbench serve of pid ${pid} in a terminal \\(\\w+\\)\\): it keeps the secrets it was started with\\. Start it again with STRIPE_WEBHOOK_SECRET in its environment, or stop it and start this window's receiver\\.`,
        ),
      );
      // Nor does stripe listen's signing secret: Expose Receiver with stripe warns, and offers the
      // secret to copy (a stand-in for the Stripe CLI prints the ready line the real one prints).
      const bin = stripeStandIn(path.join(vscode.extensions.getExtension('hookbench.hookbench')!.extensionPath, 'test', 'fixtures', 'expose'), 60);
      const searched = process.env['PATH'];
      process.env['PATH'] = `${bin}:${searched ?? ''}`;
      try {
        assert.equal(await vscode.commands.executeCommand('hookbench.expose.start', 'stripe'), 'stripe');
        await vscode.commands.executeCommand('notifications.showList');
        const stripeWarned = await readWorkbench<string>(listed, `(${listed}).includes('signing secret will not reach')`);
        await vscode.commands.executeCommand('notifications.hideList');
        assert.match(
          stripeWarned,
          new RegExp(
            `stripe listen's signing secret will not reach the attached receiver on :${new URL(url).port} \\(the hookbench serve of pid ${pid} in a terminal \\(\\w+\\)\\): it keeps the secrets it was started with, so the Stripe events forwarded to it fail their signature check\\. Start it again with this secret as STRIPE_WEBHOOK_SECRET, or stop it and start this window's receiver\\.`,
          ),
        );
        assert.doesNotMatch(stripeWarned, /the receiver now checks them/, 'nothing claims the attached serve checks with the secret');
        assert.ok(!hookbench.recentLog().some((line) => line.includes(STAND_IN_SECRET)), 'the secret is in no log line');
      } finally {
        process.env['PATH'] = searched;
        await vscode.commands.executeCommand('hookbench.expose.stop');
        fs.rmSync(bin, { recursive: true, force: true });
      }
      assert.ok(isRunning(pid), "the terminal's serve still runs");

      // Ctrl+C in the terminal: the views say it stopped, and offer Start Receiver.
      terminal.sendText('\u0003', false);
      await until(
        () => isRunning(pid),
        (running) => !running,
        'the serve did not stop on Ctrl+C',
        30_000,
      );
      const stopped = await until(
        () => hookbench.receiver.state,
        (state) => state.kind === 'stopped',
        'the receiver never showed stopped',
      );
      assert.deepEqual(stopped, {
        kind: 'stopped',
        note: `the hookbench serve of pid ${pid}, in a terminal (${/in a terminal \((\w+)\)/.exec(message)![1]}), stopped`,
      });
      const told = await readWorkbench<string>(viewMessages, `(${viewMessages}).includes('stopped: showing what was last known')`);
      assert.match(
        told,
        new RegExp(
          `The hookbench serve of pid ${pid}, in a terminal \\(\\w+\\), stopped: showing what was last known\\. Start the receiver from the title bar\\.`,
        ),
      );
      assert.match(
        hookbench.recentLog().join('\n'),
        new RegExp(`the hookbench serve of pid ${pid}, in a terminal \\(\\w+\\), stopped: Start Receiver starts this window's own`),
      );
    } finally {
      terminal.dispose();
      await vscode.commands.executeCommand('hookbench.secret.clear', 'STRIPE_WEBHOOK_SECRET');
    }
    // This window's own receiver again, for the suites after.
    const own = await startReceiver();
    assert.equal(hookbench.receiver.state.kind === 'running' && hookbench.receiver.state.attached, undefined, own);
  });
});
