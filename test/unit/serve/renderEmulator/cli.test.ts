// `hookbench render` as a user runs it: the built CLI against a local emulator.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FONT_FILE, pngSize, startEmulator, TOKEN, type Emulator } from './fixtures';

const CLI = path.resolve('dist/cli.js');
let emulator: Emulator;
let dir: string;
before(async () => {
  emulator = await startEmulator();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-render-cli-'));
  fs.writeFileSync(path.join(dir, 'page.html'), '<h1>Invoice</h1><p>Total 42</p>');
});
after(async () => {
  await emulator.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

function hookbench(
  args: string[],
  env: Record<string, string> = { HOOKBENCH_RENDER_TOKEN: TOKEN },
): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, 'render', '--base', emulator.base, ...args], { env: { PATH: process.env['PATH'] ?? '', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (status) => resolve({ status: status ?? -1, stdout, stderr }));
  });
}

describe('hookbench render', () => {
  it('writes a screenshot with the viewport asked for', async () => {
    const out = path.join(dir, 'shot.png');
    const result = await hookbench(['--html-file', path.join(dir, 'page.html'), '--viewport', '640x360', '--out', out]);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /wrote .*shot\.png \(image\/png, \d+ bytes/);
    assert.deepEqual(pngSize(fs.readFileSync(out)), { width: 640, height: 360 });
  });

  it('injects a font file and reports that it drew the text', async () => {
    const result = await hookbench(['--html-file', path.join(dir, 'page.html'), '--font-file', FONT_FILE, '--font-report']);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /ok {7}html > body > h1 {2}"Invoice"\n {9}asked: FreeMono, sans-serif\n {9}drawn: FreeMono \(web font\) ×7/);
    assert.match(result.stdout, /fonts: ready/);
  });

  it('prints JSON endpoints, and says what went wrong with exit 1 or 2', async () => {
    const markdown = await hookbench(['--html-file', path.join(dir, 'page.html'), '--endpoint', 'markdown']);
    assert.equal(markdown.stdout, '# Invoice\n\nTotal 42\n');
    const refused = await hookbench(['--url', 'file:///etc/passwd', '--out', path.join(dir, 'x.png')]);
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /400 \[5010\]: url: only http and https/);
    const wrongToken = await hookbench(['--html-file', path.join(dir, 'page.html'), '--out', path.join(dir, 'y.png')], { HOOKBENCH_RENDER_TOKEN: 'nope' });
    assert.equal(wrongToken.status, 1);
    assert.match(wrongToken.stderr, /401 \[10000\]: Authentication failed/);
    const noToken = await hookbench(['--html-file', path.join(dir, 'page.html')], {});
    assert.equal(noToken.status, 2);
    assert.match(noToken.stderr, /HOOKBENCH_RENDER_TOKEN/);
  });
});
