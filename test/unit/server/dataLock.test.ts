// One serve process per data folder: a second one on the same folder (VS Code's receiver and a
// terminal's `hookbench serve` both default to the workspace's .hookbench) refuses to start and
// says who holds it; a lock left by a process that is gone is taken over; a clean stop leaves none.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startServe } from '../helpers/serveProcess';

const lockFile = (data: string) => path.join(data, '_hookbench', 'serve.lock');

describe('data folder lock', () => {
  it('refuses a second serve on the same folder, naming the first, and the first keeps serving', async () => {
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-lock-'));
    const first = await startServe(['--data', data, '--no-render']);
    try {
      assert.equal(fs.readFileSync(lockFile(data), 'utf8').trim(), String(first.child.pid));
      await assert.rejects(startServe(['--data', data, '--no-render']), (error: Error) => {
        assert.match(error.message, /exited with 1/);
        assert.match(error.message, new RegExp(`in use by another hookbench serve \\(pid ${first.child.pid}\\)`));
        assert.match(error.message, /--data/);
        return true;
      });
      assert.equal((await fetch(`${first.url}/webhooks/github`, { method: 'GET' })).status, 405);
    } finally {
      assert.equal(await first.stop(), 0);
    }
    assert.equal(fs.existsSync(lockFile(data)), false, 'a clean stop removes the lock');
  });

  it('takes over a lock whose process is gone', async () => {
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-lock-stale-'));
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    fs.mkdirSync(path.dirname(lockFile(data)), { recursive: true });
    fs.writeFileSync(lockFile(data), `${gone.stdout}\n`);
    const served = await startServe(['--data', data, '--no-render']);
    try {
      assert.equal(fs.readFileSync(lockFile(data), 'utf8').trim(), String(served.child.pid));
    } finally {
      await served.stop();
    }
  });

  it('takes over the lock of a serve that was SIGKILLed', async () => {
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-lock-kill-'));
    const first = await startServe(['--data', data, '--no-render']);
    await first.stop('SIGKILL');
    assert.equal(fs.readFileSync(lockFile(data), 'utf8').trim(), String(first.child.pid), 'a killed process leaves its lock behind');
    const second = await startServe(['--data', data, '--no-render']);
    try {
      assert.equal(fs.readFileSync(lockFile(data), 'utf8').trim(), String(second.child.pid));
    } finally {
      await second.stop();
    }
  });
});
