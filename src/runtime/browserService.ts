/**
 * What the Browser Rendering binding (`browser = { binding = "BROWSER" }`, bindings/browser.ts)
 * needs from the serve process: browser sessions on the render emulator's Chromium, each a
 * DevTools channel, and the emulator's Quick Actions. The runtime declares it; serve provides it
 * (src/serve/renderEmulator/browserSessions.ts), so the runtime never reaches the browser itself.
 * docs/runtime.md, "The Browser Rendering binding".
 */

/** A session as `puppeteer.sessions()` lists it. */
export interface ActiveBrowserSession {
  readonly sessionId: string;
  readonly startTime: number;
  readonly connectionId?: string;
  readonly connectionStartTime?: number;
}

/** A session that ended, as `puppeteer.history()` lists it. */
export interface ClosedBrowserSession extends ActiveBrowserSession {
  readonly endTime: number;
  readonly closeReason: number;
  readonly closeReasonText: string;
}

/** One DevTools connection to a session: CDP messages as JSON text, both ways. */
export interface DevToolsChannel {
  send(message: string): void;
  /** Every message Chromium sends this connection; `closed` once the browser is gone. */
  listen(onMessage: (message: string) => void, onClose: () => void): void;
  /** Ends this connection; the session stays for its keep-alive time, as on Cloudflare. */
  disconnect(): void;
}

export interface BrowserService {
  /** Starts a session (a browser); `keepAliveMs` without a connection before it closes. */
  acquire(options: { readonly keepAliveMs?: number; readonly binding: string }): Promise<ActiveBrowserSession>;
  sessions(): ActiveBrowserSession[];
  history(): ClosedBrowserSession[];
  limits(): {
    maxConcurrentSessions: number;
    allowedBrowserAcquisitions: number;
    timeUntilNextAllowedBrowserAcquisition: number;
    activeSessions: { id: string }[];
  };
  /** The session's one connection; throws when it is unknown, closed or already connected. */
  connect(sessionId: string): DevToolsChannel;
  /** Closes the session's browser. */
  close(sessionId: string): Promise<boolean>;
  /** A Quick Action (`screenshot`, `pdf`, `content`, …) answered by the local REST emulator. */
  quickAction(action: string, body: unknown): Promise<Response>;
}
