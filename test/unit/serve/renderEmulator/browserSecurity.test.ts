// Only the render emulator drives its Chromium: DevTools over a pipe, no TCP port in the whole
// process tree, the sandbox on unless root; and no request makes it draw a bitmap past
// MAX_BITMAP_PIXELS, however tall the page turns out to be.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chromiumBrowsers, commandLine, listeningSockets, processTree } from '../../helpers/procfs';
import { startEmulator, pngSize, type Emulator } from './fixtures';

let emulator: Emulator;
let browserPid: number;
before(async () => {
  emulator = await startEmulator();
  const warm = await emulator.post('content', { html: '<p>warm</p>' });
  assert.equal(warm.status, 200);
  // The one browser below this process: the emulator's.
  const browsers = chromiumBrowsers(process.pid);
  assert.equal(browsers.length, 1, `one Chromium runs below the test (${browsers.join(', ')})`);
  browserPid = browsers[0]!;
});
after(() => emulator.stop());

describe('the render emulator’s Chromium', () => {
  it('is driven over a pipe: no process of its tree has --remote-debugging-port', () => {
    const tree = processTree(browserPid);
    assert.ok(tree.length > 1, `Chromium's helpers run below it (${tree.join(', ')})`);
    assert.ok(commandLine(browserPid).includes('--remote-debugging-pipe'), commandLine(browserPid).join(' '));
    for (const pid of tree) assert.ok(!commandLine(pid).some((arg) => arg.startsWith('--remote-debugging-port')), `${pid}: ${commandLine(pid).join(' ')}`);
  });

  it('listens on no TCP port, in any process of its tree', () => {
    // The check sees a listening socket where there is one: this process's render server.
    assert.ok((listeningSockets(process.pid) ?? []).length > 0, 'the test process’s own server is seen listening');
    assert.deepEqual(listeningSockets(browserPid), [], 'the browser process');
    for (const pid of processTree(browserPid)) assert.deepEqual(listeningSockets(pid) ?? [], [], `${pid}: ${commandLine(pid).join(' ')}`);
  });

  it('keeps the sandbox on unless running as root', () => {
    assert.equal(commandLine(browserPid).includes('--no-sandbox'), process.getuid?.() === 0);
  });
});

describe('bitmap size', () => {
  const tall = '<style>body { margin: 0 }</style><div id="tall" style="height: 200000px">tall</div>';
  const refusal = async (response: Response, message: RegExp) => {
    const body = (await response.json()) as { success: boolean; errors: { code: number; message: string }[] };
    assert.equal(response.status, 400);
    assert.equal(body.success, false);
    assert.equal(body.errors[0]!.code, 400);
    assert.match(body.errors[0]!.message, message);
  };

  it('refuses a fullPage screenshot of a page 200000 px tall with a 400 naming the limit', async () => {
    await refusal(
      await emulator.post('screenshot', { html: tall, screenshotOptions: { fullPage: true } }),
      /^screenshotOptions\.fullPage: 1920×200000 px at scale 1 is 384 megapixels; a bitmap is limited to 100 megapixels/,
    );
  });

  it('refuses the same in a snapshot, and a screenshot of the tall element by selector', async () => {
    await refusal(
      await emulator.post('snapshot', { html: tall, screenshotOptions: { fullPage: true } }),
      /^screenshotOptions\.fullPage: .* a bitmap is limited to 100 megapixels/,
    );
    await refusal(await emulator.post('screenshot', { html: tall, selector: '#tall' }), /^selector: 1920×200000 px at scale 1 is 384 megapixels/);
  });

  it('refuses an oversized viewport before opening a page', async () => {
    await refusal(
      await emulator.post('screenshot', { html: '<p>x</p>', viewport: { width: 10_000, height: 10_000, deviceScaleFactor: 2 } }),
      /^viewport: 10000×10000 px at scale 2 is 400 megapixels; a bitmap is limited to 100 megapixels/,
    );
  });

  it('still renders afterwards: full HD at scale 2, a full page 5000 px tall, and a clip at its scale times the device scale', async () => {
    const shot = async (body: Record<string, unknown>) => {
      const response = await emulator.post('screenshot', body);
      assert.equal(response.status, 200, await response.clone().text());
      return pngSize(new Uint8Array(await response.arrayBuffer()));
    };
    assert.deepEqual(await shot({ html: '<p>ok</p>', viewport: { width: 1920, height: 1080, deviceScaleFactor: 2 } }), { width: 3840, height: 2160 });
    assert.deepEqual(await shot({ html: '<style>body { margin: 0 }</style><div style="height: 5000px">long</div>', screenshotOptions: { fullPage: true } }), {
      width: 1920,
      height: 5000,
    });
    assert.deepEqual(
      await shot({ html: '<p>clip</p>', viewport: { deviceScaleFactor: 2 }, screenshotOptions: { clip: { x: 0, y: 0, width: 100, height: 50, scale: 2 } } }),
      { width: 400, height: 200 },
    );
  });
});
