// What listens on the workspace's port, for attaching to a hookbench serve there: its pid, as the
// system's `ss` names it; none for a free port.
import '../../helpers/vscodeShim';
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isFree } from '../../../../src/core/nextFreePort';
import { listenerPid } from '../../../../src/vscode/receiver/portInUse';
import { terminalServe } from '../../helpers/serveProcess';

const cleanups: (() => unknown)[] = [];
afterEach(() =>
  cleanups
    .splice(0)
    .reverse()
    .forEach((cleanup) => cleanup()),
);

describe('the process on a port', () => {
  it('is the serve listening there, and none on a free port', async () => {
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-port-'));
    cleanups.push(() => fs.rmSync(data, { recursive: true, force: true }));
    const serve = await terminalServe(data);
    cleanups.push(() => serve.kill());
    const port = Number(serve.lock.admin!.split(':').at(-1));
    assert.equal(await listenerPid(port), serve.lock.pid);
    let free = 40_000;
    while (!(await isFree('127.0.0.1', free))) free++;
    assert.equal(await listenerPid(free), undefined);
  });
});
