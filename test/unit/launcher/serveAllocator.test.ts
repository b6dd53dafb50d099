// `hookbench serve` started from a shell without the allocator environment (SERVE_PROCESS_ENV)
// runs with it all the same (src/serveAllocator.ts): the CLI starts itself again with it, once,
// and passes signals, output and exit codes through.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SERVE_PROCESS_ENV } from '../../../src/core/contract/serveEnvironment';
import { listeningUrl } from '../../../src/core/contract/serveHandshake';
import { allocatorEnvironment, REEXEC_MARKER_ENV } from '../../../src/serveAllocator';
import { projectRoot } from '../helpers/serveWorker';

const cli = (): string => path.join(projectRoot(), 'dist', 'cli.js');

/** This environment without the allocator's variables, as a shell has it. */
function shellEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of [...Object.keys(SERVE_PROCESS_ENV), REEXEC_MARKER_ENV]) delete env[name];
  return env;
}

/** The process `pid` and every process under it. */
function tree(pid: number): number[] {
  const children = fs
    .readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .flatMap((entry) => {
      try {
        const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid ? [Number(entry)] : [];
      } catch {
        return [];
      }
    });
  return [pid, ...children.flatMap(tree)];
}

const environOf = (pid: number): string[] => fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');

describe('serve started from a shell', { skip: process.platform !== 'linux' && 'glibc only' }, () => {
  it('runs serve with the allocator environment, and stops on Ctrl-C with exit code 0', async () => {
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-reexec-'));
    const shell = spawn('/bin/sh', ['-c', `exec "${process.execPath}" "${cli()}" serve --port 0 --no-render --data "${data}"`], {
      env: shellEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    shell.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const exited = new Promise<[number | null, string | null]>((resolve) => shell.once('exit', (code, signal) => resolve([code, signal])));
    const url = await new Promise<string>((resolve, reject) => {
      shell.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const found = out
          .split('\n')
          .map(listeningUrl)
          .find((u) => u !== undefined);
        if (found) resolve(found);
      });
      void exited.then(() => reject(new Error(`serve exited before listening:\n${err}`)));
    });
    const serving = tree(shell.pid!).filter((pid) => environOf(pid).includes(`${REEXEC_MARKER_ENV}=1`));
    try {
      assert.equal(serving.length, 1, 'exactly one process runs serve again');
      for (const [name, value] of Object.entries(SERVE_PROCESS_ENV)) assert.ok(environOf(serving[0]!).includes(`${name}=${value}`), `${name} is set for serve`);
      assert.equal((await fetch(`${url}/`)).status < 500, true);
    } catch (error) {
      for (const pid of tree(shell.pid!)) process.kill(pid, 'SIGKILL');
      throw error;
    }
    shell.kill('SIGINT');
    assert.deepEqual(await exited, [0, null]);
    assert.match(err, /\[receiver\] stopped/);
    for (const pid of serving) assert.equal(fs.existsSync(`/proc/${pid}`), false, 'serve is gone too');
  });

  it('passes a usage error and its exit code through', () => {
    const result = spawnSync(process.execPath, [cli(), 'serve', '--port', 'nope'], { env: shellEnv(), encoding: 'utf8' });
    assert.equal(result.status, 2);
    assert.equal(result.stderr.split('\n')[0], 'hookbench serve: --port is a number from 0 to 65535');
  });

  it('dies of the signal serve dies of', async () => {
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-reexec-kill-'));
    const started = spawn(process.execPath, [cli(), 'serve', '--port', '0', '--no-render', '--data', data], {
      env: shellEnv(),
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const exited = new Promise<[number | null, string | null]>((resolve) => started.once('exit', (code, signal) => resolve([code, signal])));
    await new Promise<void>((resolve) => started.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('listening on') && resolve()));
    const serving = tree(started.pid!).find((pid) => environOf(pid).includes(`${REEXEC_MARKER_ENV}=1`));
    if (serving === undefined) for (const pid of tree(started.pid!)) process.kill(pid, 'SIGKILL');
    assert.ok(serving !== undefined, 'serve runs again with the marker');
    process.kill(serving, 'SIGKILL');
    assert.deepEqual(await exited, [null, 'SIGKILL']);
  });
});

describe('allocatorEnvironment', () => {
  it('asks for a re-exec only for serve on Linux without the variables, and never twice', () => {
    const bare = { PATH: '/bin' };
    assert.deepEqual(allocatorEnvironment(['serve'], bare, 'linux'), { ...bare, ...SERVE_PROCESS_ENV, [REEXEC_MARKER_ENV]: '1' });
    assert.equal(allocatorEnvironment(['send'], bare, 'linux'), undefined);
    assert.equal(allocatorEnvironment(['serve'], bare, 'darwin'), undefined);
    assert.equal(allocatorEnvironment(['serve'], { ...bare, ...SERVE_PROCESS_ENV }, 'linux'), undefined);
    assert.equal(allocatorEnvironment(['serve'], { ...bare, [REEXEC_MARKER_ENV]: '1' }, 'linux'), undefined);
    assert.equal(allocatorEnvironment(['serve'], { ...bare, HOOKBENCH_NO_REEXEC: '1' }, 'linux'), undefined);
  });
});
