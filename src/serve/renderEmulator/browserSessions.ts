/**
 * The browser sessions behind the Browser Rendering binding (runtime/browserService.ts):
 * each session is a Chromium of its own, started like the REST emulator's (the same binary,
 * flags, fonts and page guard proxy), driven over DevTools' pipe. One worker connection at a
 * time; a session with no connection closes after its keep-alive time (60 s by default, as on
 * Cloudflare); `Browser.close` from the worker ends it. Every capture the worker takes
 * (`Page.printToPDF`, `Page.captureScreenshot`) is preceded by the font report of that page,
 * logged as one line (docs/runtime.md, "The Browser Rendering binding").
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../core/log';
import type { ActiveBrowserSession, BrowserService, ClosedBrowserSession, DevToolsChannel } from '../../runtime/browserService';
import { realTimers, type TimerHandle, type Timers } from '../../core/timers';
import { findChromium, launchArgs } from './browserPool';
import { ChromiumPipe } from './chromiumPipe';
import { fontReportLine, reportFonts } from './fontReport';

export interface BrowserSessionsOptions {
  readonly logger: Logger;
  readonly executablePath?: string;
  /** The page guard's proxy (pageGuard.ts), as for the REST emulator's pages. */
  readonly proxyServer: () => string | undefined;
  /** Sessions at once (Cloudflare's Workers Paid default is 10; Miniflare answers 6). */
  readonly maxSessions?: number;
  readonly timers?: Timers;
  readonly quickAction: (action: string, body: unknown) => Promise<Response>;
}

/** DevTools message ids Hookbench's own commands use, far above any client's. */
const OWN_IDS = 1_000_000_000;
const CAPTURES = new Set(['Page.printToPDF', 'Page.captureScreenshot']);
/** How long a capture waits for its font report before it goes ahead without one. */
const REPORT_MS = 5_000;
const HISTORY = 100;

interface CdpMessage {
  id?: number;
  method?: string;
  sessionId?: string;
  params?: Record<string, unknown> & { sessionId?: string; targetInfo?: { targetId: string; url: string } };
  result?: unknown;
  error?: { message: string };
}

class Session {
  readonly info: { sessionId: string; startTime: number; connectionId?: string; connectionStartTime?: number };
  #listener: ((message: string) => void) | undefined;
  #onClose: (() => void) | undefined;
  #nextId = OWN_IDS;
  readonly #pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  /** The worker's target sessions: its CDP session id → the page's target. */
  readonly #targets = new Map<string, { targetId: string; url: string }>();
  /** CDP sessions Hookbench attached for its font reports: nothing of theirs reaches the worker. */
  readonly #own = new Set<string>();
  #outgoing: Promise<void> = Promise.resolve();
  #idle: TimerHandle | undefined;

  constructor(
    readonly pipe: ChromiumPipe,
    private readonly options: BrowserSessionsOptions & { binding: string; keepAliveMs: number; now: number },
  ) {
    this.info = { sessionId: randomUUID(), startTime: options.now };
    pipe.onMessage((text) => this.#fromChromium(text));
  }

  connect(): DevToolsChannel {
    if (this.info.connectionId !== undefined)
      throw Object.assign(new Error(`the browser session ${this.info.sessionId} already has a connection`), { status: 409 });
    this.#idle?.cancel();
    this.info.connectionId = randomUUID();
    this.info.connectionStartTime = this.#timers.now();
    return {
      send: (message) => {
        this.#outgoing = this.#outgoing.then(() => this.#toChromium(message));
      },
      listen: (onMessage, onClose) => {
        this.#listener = onMessage;
        this.#onClose = onClose;
      },
      disconnect: () => this.#disconnect(),
    };
  }

  /** The browser is gone: the connection hears of it. */
  ended(): void {
    this.#idle?.cancel();
    this.#onClose?.();
    this.#listener = undefined;
  }

  /** No connection: the session waits its keep-alive time for one, then closes. */
  keepAlive(close: () => void): void {
    this.#idle?.cancel();
    this.#idle = this.#timers.after(this.options.keepAliveMs, close, { unref: true });
  }

  get #timers(): Timers {
    return this.options.timers ?? realTimers;
  }

  #disconnect(): void {
    if (this.info.connectionId === undefined) return;
    delete this.info.connectionId;
    delete this.info.connectionStartTime;
    this.#listener = undefined;
    this.#onClose = undefined;
    // A DevTools WebSocket that closes detaches its sessions; over the pipe, Hookbench does it.
    for (const sessionId of this.#targets.keys()) void this.#command('Target.detachFromTarget', { sessionId }).catch(() => undefined);
    this.#targets.clear();
    void this.#command('Target.setAutoAttach', { autoAttach: false, waitForDebuggerOnStart: false }).catch(() => undefined);
    void this.#command('Target.setDiscoverTargets', { discover: false }).catch(() => undefined);
    this.onDisconnect?.();
  }

  onDisconnect: (() => void) | undefined;
  /** The worker's `Browser.close` was answered: the session is over, whenever Chromium exits. */
  onBrowserClosed: (() => void) | undefined;
  #closeId: number | undefined;

  async #toChromium(text: string): Promise<void> {
    const message = JSON.parse(text) as CdpMessage;
    const target = message.sessionId !== undefined ? this.#targets.get(message.sessionId) : undefined;
    if (target && CAPTURES.has(message.method ?? '')) await this.#report(target, message.method!);
    if (message.method === 'Browser.close' && message.sessionId === undefined) this.#closeId = message.id;
    this.pipe.send(text);
  }

  #fromChromium(text: string): void {
    const message = JSON.parse(text) as CdpMessage;
    if (message.id !== undefined && message.id >= OWN_IDS) return this.#answered(message);
    if (message.id === 0) return;
    const about = message.params?.sessionId;
    if (message.sessionId !== undefined && this.#own.has(message.sessionId)) return;
    if (about !== undefined && this.#own.has(about)) return;
    if (message.method === 'Target.attachedToTarget' && about !== undefined && message.params?.targetInfo) this.#targets.set(about, message.params.targetInfo);
    if (message.method === 'Target.detachedFromTarget' && about !== undefined) this.#targets.delete(about);
    this.#listener?.(text);
    if (message.id !== undefined && message.id === this.#closeId && message.sessionId === undefined) this.onBrowserClosed?.();
  }

  #answered(message: CdpMessage): void {
    const waiting = this.#pending.get(message.id!);
    this.#pending.delete(message.id!);
    if (message.error) waiting?.reject(new Error(message.error.message));
    else waiting?.resolve(message.result);
  }

  #command<T>(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<T> {
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.pipe.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    });
  }

  /** The font report of the page about to be captured, on a CDP session of Hookbench's own, logged. */
  async #report(target: { targetId: string; url: string }, method: string): Promise<void> {
    const what = method === 'Page.printToPDF' ? 'PDF' : 'screenshot';
    const report = (async () => {
      const { sessionId } = await this.#command<{ sessionId: string }>('Target.attachToTarget', { targetId: target.targetId, flatten: true });
      this.#own.add(sessionId);
      try {
        const send = <T>(command: string, params?: Record<string, unknown>) => this.#command<T>(command, params, sessionId);
        const evaluate = async <T>(fn: () => T): Promise<T> => {
          const answer = await send<{ result: { value: T }; exceptionDetails?: { text: string } }>('Runtime.evaluate', {
            expression: `(${fn.toString()})()`,
            returnByValue: true,
            awaitPromise: true,
          });
          if (answer.exceptionDetails) throw new Error(answer.exceptionDetails.text);
          return answer.result.value;
        };
        return await reportFonts({ evaluate, send });
      } finally {
        await this.#command('Target.detachFromTarget', { sessionId }).catch(() => undefined);
      }
    })();
    let timer: TimerHandle | undefined;
    const timeout = new Promise<'timeout'>((resolve) => (timer = this.#timers.after(REPORT_MS, () => resolve('timeout'), { unref: true })));
    const where = `[browser] ${this.options.binding} session ${this.info.sessionId.slice(0, 8)}: ${what} of ${target.url}`;
    try {
      const done = await Promise.race([report, timeout]);
      this.options.logger.info(done === 'timeout' ? `${where}: no font report within ${REPORT_MS} ms` : `${where}: ${fontReportLine(done)}`);
    } catch (error) {
      this.options.logger.info(`${where}: no font report (${(error as Error).message})`);
    } finally {
      timer?.cancel();
    }
  }
}

export class BrowserSessions implements BrowserService {
  readonly #options: BrowserSessionsOptions;
  readonly #sessions = new Map<string, Session>();
  readonly #history: ClosedBrowserSession[] = [];
  #closed = false;

  constructor(options: BrowserSessionsOptions) {
    this.#options = options;
  }

  get #max(): number {
    return this.#options.maxSessions ?? 10;
  }

  get #timers(): Timers {
    return this.#options.timers ?? realTimers;
  }

  async acquire(options: { keepAliveMs?: number; binding: string }): Promise<ActiveBrowserSession> {
    if (this.#closed) throw Object.assign(new Error('the render emulator is stopping'), { status: 503 });
    if (this.#sessions.size >= this.#max)
      throw Object.assign(new Error(`Rate limit exceeded: ${this.#max} browser sessions are open (close one with browser.close())`), { status: 429 });
    const pipe = await ChromiumPipe.launch(findChromium(this.#options.executablePath), launchArgs(this.#options.proxyServer()));
    const session = new Session(pipe, { ...this.#options, binding: options.binding, keepAliveMs: options.keepAliveMs ?? 60_000, now: this.#timers.now() });
    const id = session.info.sessionId;
    this.#sessions.set(id, session);
    session.onBrowserClosed = () => this.#ended(id, 'NormalClosure', 1);
    session.onDisconnect = () => session.keepAlive(() => void this.#end(id, 'BrowserIdle', 2));
    session.keepAlive(() => void this.#end(id, 'BrowserIdle', 2));
    void pipe.exited.then(() => this.#ended(id, 'NormalClosure', 1));
    this.#options.logger.info(`[browser] ${options.binding}: session ${id} started (Chromium pid ${pipe.pid})`);
    return { ...session.info };
  }

  sessions(): ActiveBrowserSession[] {
    return [...this.#sessions.values()].map((session) => ({ ...session.info }));
  }

  history(): ClosedBrowserSession[] {
    return [...this.#history];
  }

  limits(): ReturnType<BrowserService['limits']> {
    const active = [...this.#sessions.keys()];
    return {
      activeSessions: active.map((id) => ({ id })),
      maxConcurrentSessions: this.#max,
      allowedBrowserAcquisitions: active.length < this.#max ? 1 : 0,
      timeUntilNextAllowedBrowserAcquisition: 0,
    };
  }

  connect(sessionId: string): DevToolsChannel {
    const session = this.#sessions.get(sessionId);
    if (!session) throw Object.assign(new Error(`Session not found: ${sessionId}`), { status: 404 });
    return session.connect();
  }

  async close(sessionId: string): Promise<boolean> {
    return this.#end(sessionId, 'NormalClosure', 1);
  }

  quickAction(action: string, body: unknown): Promise<Response> {
    return this.#options.quickAction(action, body);
  }

  /** Closes every session (serve stopping). */
  async closeAll(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#sessions.keys()].map((id) => this.#end(id, 'NormalClosure', 1)));
  }

  async #end(sessionId: string, reason: string, code: number): Promise<boolean> {
    const session = this.#sessions.get(sessionId);
    if (!session) return false;
    this.#ended(sessionId, reason, code);
    await session.pipe.close();
    return true;
  }

  /** Records a session's end once, whichever came first: its close, its idle time, Chromium exiting. */
  #ended(sessionId: string, closeReasonText: string, closeReason: number): void {
    const session = this.#sessions.get(sessionId);
    if (!session) return;
    this.#sessions.delete(sessionId);
    session.ended();
    const { connectionId: _c, connectionStartTime: _s, ...info } = session.info;
    this.#history.unshift({ ...info, endTime: this.#timers.now(), closeReason, closeReasonText });
    this.#history.splice(HISTORY);
    this.#options.logger.info(`[browser] session ${sessionId} closed (${closeReasonText})`);
  }
}
