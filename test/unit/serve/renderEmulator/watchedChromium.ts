// The render emulator's Chromium watched from outside, through the browser's own DevTools
// protocol. The emulator drives it over a pipe, which admits one client; so a test hands the
// emulator (its `executablePath`) a wrapper that notes each launch's process id and starts Debian's
// Chromium with a DevTools port on loopback as well, and a second client that only watches the
// targets: which pages exist, in which context, and where they navigate. Tests only: the
// emulator's own Chromium never opens a port (browserSecurity.test.ts).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import WebSocket from 'ws';
import { findChromium } from '../../../../src/serve/renderEmulator/browserPool';
import { commandLine } from '../../helpers/procfs';

export interface WatchedChromium {
  /** What the emulator launches (its `executablePath`). */
  readonly executablePath: string;
  /** Chromium launches so far, as the wrapper counted them. */
  launches(): number;
  /** The browser process the last launch started, while it runs. */
  pid(): number | undefined;
  /** A watcher of the running browser's targets, from now until it closes. */
  watch(): Promise<BrowserTargets>;
}

/** A wrapper around Debian's Chromium in a temp folder of its own. */
export function watchedChromium(): WatchedChromium {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-watched-chromium-'));
  const launches = path.join(dir, 'launches');
  const executablePath = path.join(dir, 'chromium');
  // `exec` keeps the shell's process id: the line written is the browser's.
  fs.writeFileSync(executablePath, `#!/bin/sh\necho $$ >> '${launches}'\nexec '${findChromium()}' --remote-debugging-port=0 "$@"\n`, { mode: 0o700 });
  const pids = () => (fs.existsSync(launches) ? fs.readFileSync(launches, 'utf8').split('\n').filter(Boolean).map(Number) : []);
  const pid = () => {
    const last = pids().at(-1);
    // A killed browser is gone, or a zombie with an empty command line, until it is reaped.
    return last !== undefined && commandLine(last).length > 0 ? last : undefined;
  };
  return {
    executablePath,
    launches: () => pids().length,
    pid,
    watch: async () => {
      const browser = pid();
      if (browser === undefined) throw new Error('no watched Chromium runs');
      return BrowserTargets.attach(browser);
    },
  };
}

interface PageTarget {
  readonly id: string;
  readonly context: string;
  /** The sequence number of the event that destroyed it. */
  destroyed?: number;
  /** Every URL it showed after about:blank, with the sequence number of its change. */
  readonly visited: { url: string; at: number }[];
}

/** A message of the DevTools protocol: an answer (`id`) or an event (`method`), of a page's session or the browser's. */
interface DevToolsMessage {
  readonly id?: number;
  readonly method?: string;
  readonly params?: Record<string, unknown>;
  readonly result?: Record<string, unknown>;
  readonly sessionId?: string;
}

interface TargetInfo {
  readonly targetId: string;
  readonly type: string;
  readonly url: string;
  readonly browserContextId?: string;
}

/**
 * The page targets of one browser, as a client that discovers targets sees them. A page opened
 * ahead of a request is one in a context of its own (not the browser's default one) that has
 * shown nothing but about:blank.
 */
export class BrowserTargets {
  private readonly pages = new Map<string, PageTarget>();
  private readonly waiters = new Set<() => void>();
  private sequence = 0;
  private ended = false;
  private defaultContext = '';
  private requests = 0;
  private readonly answers = new Map<number, { resolve: (result: Record<string, unknown>) => void; reject: (error: Error) => void }>();
  /** The lifecycle events' listener of each page the watcher joined, by DevTools session. */
  private readonly lifecycle = new Map<string, (name: string) => void>();

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data) => this.receive(JSON.parse(data.toString()) as DevToolsMessage));
    socket.on('close', () => {
      this.ended = true;
      for (const { reject } of this.answers.values()) reject(new Error('the browser closed'));
      this.answers.clear();
      this.changed();
    });
  }

  /** Connects to the DevTools port the browser `pid` opened (its DevToolsActivePort file). */
  static async attach(pid: number): Promise<BrowserTargets> {
    const profile = commandLine(pid)
      .find((arg) => arg.startsWith('--user-data-dir='))
      ?.slice('--user-data-dir='.length);
    if (!profile) throw new Error(`Chromium ${pid} has no --user-data-dir`);
    const [port, browserPath] = fs.readFileSync(path.join(profile, 'DevToolsActivePort'), 'utf8').trim().split('\n');
    const socket = new WebSocket(`ws://127.0.0.1:${port}${browserPath}`);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    const targets = new BrowserTargets(socket);
    targets.defaultContext = String((await targets.send('Target.getBrowserContexts'))['defaultBrowserContextId']);
    await targets.send('Target.setDiscoverTargets', { discover: true });
    return targets;
  }

  /**
   * Resolves once the browser has disposed of the context `page` was in: Chromium drops it from
   * its contexts just before it answers the client that closed it (here, the pool, which opens its
   * next spare on that answer).
   */
  async contextClosed(page: string): Promise<void> {
    const context = this.pages.get(page)?.context;
    await this.until(() => this.pages.get(page)?.destroyed !== undefined, `page ${page} closed`);
    while (((await this.send('Target.getBrowserContexts'))['browserContextIds'] as string[]).includes(context ?? '')) {
      // Asked again: each answer is the browser's own, after the commands before it.
    }
  }

  /** A point in the browser's events, to ask later what happened after it. */
  mark(): number {
    return this.sequence;
  }

  /** Pages opened ahead that are open now. */
  spares(): string[] {
    return [...this.pages.values()].filter((page) => page.destroyed === undefined && this.isSpare(page)).map((page) => page.id);
  }

  /** Pages opened ahead that were open at `mark` or opened after it, until now. */
  sparesSince(mark: number): string[] {
    return [...this.pages.values()].filter((page) => (page.destroyed === undefined || page.destroyed > mark) && this.isSpare(page)).map((page) => page.id);
  }

  /** The pages that navigated to a URL ending in `suffix` after `mark`, in the order they did. */
  navigatedSince(mark: number, suffix: string): string[] {
    return [...this.pages.values()]
      .flatMap((page) => page.visited.filter((visit) => visit.at > mark && visit.url.endsWith(suffix)).map((visit) => ({ id: page.id, at: visit.at })))
      .sort((a, b) => a.at - b.at)
      .map((visit) => visit.id);
  }

  /** The URLs of the browser's own UI pages (`browser_ui` targets: WebUI popups of its windows). */
  async browserUi(): Promise<string[]> {
    const { targetInfos } = (await this.send('Target.getTargets', { filter: [{}] })) as { targetInfos?: TargetInfo[] };
    return (targetInfos ?? []).filter((target) => target.type === 'browser_ui').map((target) => target.url);
  }

  /** Resolves on the browser event after which `check` holds (at once if it holds now). */
  until(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(look);
        reject(new Error(`${what}: not within ${timeoutMs} ms (pages opened ahead now: ${this.spares().length})`));
      }, timeoutMs);
      const look = () => {
        if (!check()) return;
        clearTimeout(timer);
        this.waiters.delete(look);
        resolve();
      };
      this.waiters.add(look);
      look();
    });
  }

  /**
   * Resolves once the page `id` has reached network idle (Chromium's `networkIdle` lifecycle
   * event, which its idleness detector fires once, 0.5–1 s after a page opens). The watcher joins
   * the page as a second DevTools client only for this; enabling lifecycle events has the page
   * report those that already happened, so a page past it answers at once.
   */
  async networkIdle(id: string): Promise<void> {
    const { sessionId } = (await this.send('Target.attachToTarget', { targetId: id, flatten: true })) as { sessionId: string };
    try {
      const idle = new Promise<void>((resolve) => this.lifecycle.set(sessionId, (name) => name === 'networkIdle' && resolve()));
      await this.send('Page.enable', {}, sessionId);
      await this.send('Page.setLifecycleEventsEnabled', { enabled: true }, sessionId);
      await idle;
    } finally {
      this.lifecycle.delete(sessionId);
      await this.send('Target.detachFromTarget', { sessionId });
    }
  }

  /** Resolves once the browser closed its DevTools connection: it has no target left. */
  closed(): Promise<void> {
    return this.until(() => this.ended, 'the browser closed');
  }

  close(): void {
    this.socket.close();
  }

  private send(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<Record<string, unknown>> {
    const id = ++this.requests;
    this.socket.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    return new Promise((resolve, reject) => this.answers.set(id, { resolve, reject }));
  }

  private isSpare(page: PageTarget): boolean {
    return page.context !== this.defaultContext && page.visited.length === 0;
  }

  private receive(message: DevToolsMessage): void {
    this.sequence++;
    if (message.method === 'Page.lifecycleEvent' && message.sessionId) this.lifecycle.get(message.sessionId)?.(String(message.params?.['name']));
    const answer = message.id === undefined ? undefined : this.answers.get(message.id);
    if (answer) {
      this.answers.delete(message.id!);
      if (message.result) answer.resolve(message.result);
      else answer.reject(new Error(`DevTools: ${JSON.stringify(message)}`));
    }
    const info = message.params?.['targetInfo'] as TargetInfo | undefined;
    if (message.method === 'Target.targetCreated' && info?.type === 'page') {
      this.pages.set(info.targetId, { id: info.targetId, context: info.browserContextId ?? '', visited: [] });
    } else if (message.method === 'Target.targetInfoChanged' && info) {
      const page = this.pages.get(info.targetId);
      if (page && page.destroyed === undefined && info.url !== 'about:blank' && page.visited.at(-1)?.url !== info.url)
        page.visited.push({ url: info.url, at: this.sequence });
    } else if (message.method === 'Target.targetDestroyed') {
      const page = this.pages.get(String(message.params?.['targetId']));
      if (page) page.destroyed = this.sequence;
    }
    this.changed();
  }

  private changed(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}
