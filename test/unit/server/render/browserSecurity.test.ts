// Only the render emulator drives its Chromium: DevTools over a pipe, no TCP port in the whole
// process tree, the sandbox on unless root; and no request makes it draw a bitmap past
// MAX_BITMAP_PIXELS, however tall the page turns out to be.
import * as fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startEmulator, pngSize, type Emulator } from './fixtures';

/** Reads a /proc file of a process that may exit meanwhile, or cannot be read (sandboxed, non-dumpable). */
function procRead<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

/** `root` and every process below it, from the parent id in each /proc/<pid>/stat. */
function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    const stat = procRead(() => fs.readFileSync(`/proc/${name}/stat`, 'utf8'));
    if (!stat) continue;
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i]!) ?? []));
  return tree;
}

function commandLine(pid: number): string[] {
  return procRead(() => fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')) ?? [];
}

/**
 * The TCP sockets `pid` holds that are listening, by inode: its fds' `socket:[inode]` links
 * matched with the LISTEN (state 0A) rows of /proc/<pid>/net/tcp and tcp6, its own network
 * namespace's tables. Undefined when its fds cannot be read.
 */
function listeningSockets(pid: number): string[] | undefined {
  const links = procRead(() => fs.readdirSync(`/proc/${pid}/fd`).map((fd) => procRead(() => fs.readlinkSync(`/proc/${pid}/fd/${fd}`))));
  if (!links) return undefined;
  const listening = new Set<string>();
  for (const table of ['tcp', 'tcp6']) {
    const rows = procRead(() => fs.readFileSync(`/proc/${pid}/net/${table}`, 'utf8').trim().split('\n').slice(1)) ?? [];
    for (const row of rows) {
      const fields = row.trim().split(/\s+/);
      if (fields[3] === '0A') listening.add(fields[9]!);
    }
  }
  return links.map((link) => /^socket:\[(\d+)\]$/.exec(link ?? '')?.[1]).filter((inode): inode is string => inode !== undefined && listening.has(inode));
}

let emulator: Emulator;
let browserPid: number;
before(async () => {
  emulator = await startEmulator();
  const warm = await emulator.post('content', { html: '<p>warm</p>' });
  assert.equal(warm.status, 200);
  browserPid = (await emulator.server.pool.pid())!;
  assert.ok(browserPid, 'the pool knows its Chromium');
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
    await refusal(await emulator.post('screenshot', { html: tall, screenshotOptions: { fullPage: true } }), /^screenshotOptions\.fullPage: 1920×200000 px at scale 1 is 384 megapixels; a bitmap is limited to 100 megapixels/);
  });

  it('refuses the same in a snapshot, and a screenshot of the tall element by selector', async () => {
    await refusal(await emulator.post('snapshot', { html: tall, screenshotOptions: { fullPage: true } }), /^screenshotOptions\.fullPage: .* a bitmap is limited to 100 megapixels/);
    await refusal(await emulator.post('screenshot', { html: tall, selector: '#tall' }), /^selector: 1920×200000 px at scale 1 is 384 megapixels/);
  });

  it('refuses an oversized viewport before opening a page', async () => {
    await refusal(await emulator.post('screenshot', { html: '<p>x</p>', viewport: { width: 10_000, height: 10_000, deviceScaleFactor: 2 } }), /^viewport: 10000×10000 px at scale 2 is 400 megapixels; a bitmap is limited to 100 megapixels/);
  });

  it('still renders afterwards: full HD at scale 2, a full page 5000 px tall, and a clip at its scale times the device scale', async () => {
    const shot = async (body: Record<string, unknown>) => {
      const response = await emulator.post('screenshot', body);
      assert.equal(response.status, 200, await response.clone().text());
      return pngSize(new Uint8Array(await response.arrayBuffer()));
    };
    assert.deepEqual(await shot({ html: '<p>ok</p>', viewport: { width: 1920, height: 1080, deviceScaleFactor: 2 } }), { width: 3840, height: 2160 });
    assert.deepEqual(await shot({ html: '<style>body { margin: 0 }</style><div style="height: 5000px">long</div>', screenshotOptions: { fullPage: true } }), { width: 1920, height: 5000 });
    assert.deepEqual(await shot({ html: '<p>clip</p>', viewport: { deviceScaleFactor: 2 }, screenshotOptions: { clip: { x: 0, y: 0, width: 100, height: 50, scale: 2 } } }), { width: 400, height: 200 });
  });
});
