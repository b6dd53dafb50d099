/**
 * The explorer's connection to the running receiver: an admin client for the current server (a
 * new one after every restart) and one coalesced change event for the trees, so a burst of
 * webhooks redraws them once.
 */
import type * as vscode from 'vscode';
import { DisposableStore, Emitter } from '../../core/events';
import type { Logger } from '../../core/log';
import type { LiveMessage } from '../../core/contract/live';
import { AdminClient } from '../client/adminClient';
import type { ServerController } from '../server/serverController';

export class ExplorerSession implements vscode.Disposable {
  private readonly store = new DisposableStore();
  private readonly changed = new Emitter<void>();
  /** Fires at most once per `coalesceMs` however many deliveries arrive. */
  readonly onDidChange = this.changed.event;
  private readonly liveMessages = new Emitter<LiveMessage>();
  readonly onLive = this.liveMessages.event;
  private current: AdminClient | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly server: ServerController,
    private readonly logger: Logger,
    private readonly coalesceMs = 100,
  ) {
    this.store.add(server.onDidChangeState(() => this.sync()));
    this.sync();
  }

  get client(): AdminClient | undefined {
    return this.current;
  }

  private sync(): void {
    const url = this.server.url;
    if (url === this.current?.baseUrl) return;
    this.current?.dispose();
    this.current = undefined;
    if (url) {
      const client = new AdminClient(url, this.server.adminToken, this.logger);
      client.onLive((message) => {
        this.liveMessages.fire(message);
        this.schedule();
      });
      client.connectLive();
      this.current = client;
    }
    this.schedule();
  }

  /** Asks the trees to redraw soon, once for everything that happened meanwhile. */
  schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.changed.fire();
    }, this.coalesceMs);
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.current?.dispose();
    this.changed.dispose();
    this.liveMessages.dispose();
    this.store.dispose();
  }
}

/** "12 s ago", "5 min ago", "3 h ago", or the date. */
export function relativeTime(iso: string, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (Number.isNaN(seconds)) return '';
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.round(seconds / 3600)} h ago`;
  return new Date(iso).toISOString().slice(0, 10);
}
