// A taken port: `hookbench serve` says so in one line that names --port, with no stack, and exits 1.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { projectRoot } from '../helpers/serveWorker';

describe('serve on a port in use', () => {
  it('exits 1 with one line naming --port and no stack', async () => {
    const holder = http.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as AddressInfo;
    try {
      const data = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-port-'));
      const child = spawn(process.execPath, [path.join(projectRoot(), 'dist', 'cli.js'), 'serve', '--port', String(port), '--no-render', '--data', data], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      assert.equal(code, 1);
      const lines = stderr
        .trim()
        .split('\n')
        .filter((line) => !/ info /.test(line));
      assert.deepEqual(lines, [`hookbench: port ${port} on 127.0.0.1 is in use by another program: choose another with --port (--port 0 picks a free one)`]);
      assert.doesNotMatch(stderr, /\n\s+at /);
    } finally {
      holder.close();
    }
  });
});
