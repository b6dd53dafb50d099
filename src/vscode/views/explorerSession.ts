/**
 * The explorer's connection to the running receiver: an admin client for the current server (a
 * new one after every restart), the live feed into the explorer's model, and the model's paced
 * changes for the trees, so a burst of webhooks redraws only the nodes it touched, once; an
 * expanded instance is read over its agent's own WebSocket (client/instanceReader.ts).
 */
import * as vscode from 'vscode';
import { DisposableStore, Emitter, type Event } from '../../core/events';
import type { Logger } from '../../core/log';
import type { LiveMessage } from '../../core/contract/live';
import { AdminClient } from '../client/adminClient';
import { localReader } from '../client/instanceReader';
import type { ServerController } from '../receiver/serverController';
import { ExplorerModel, type ExplorerChange, type ExplorerFeed } from './explorerModel';

export class ExplorerSession implements vscode.Disposable, ExplorerFeed {
  private readonly store = new DisposableStore();
  readonly model: ExplorerModel;
  private readonly liveMessages = new Emitter<LiveMessage>();
  readonly onLive = this.liveMessages.event;
  private readonly reloads = new Emitter<void>();
  /** The user asked to read everything again (the views' Refresh): views read on demand re-read. */
  readonly onDidReload = this.reloads.event;
  private current: AdminClient | undefined;

  constructor(
    private readonly server: ServerController,
    private readonly logger: Logger,
    paceMs = 250,
  ) {
    // The built-in worker's retention, so a count learnt from the feed stops where its table does:
    // read when it changes, not at each event (reading the configuration at each event showed in
    // the extension host's profile: docs/performance.md, "The explorer in the extension host").
    const retention = () => vscode.workspace.getConfiguration('hookbench').get<number>('retention.maxEvents', 100);
    let retained = retention();
    this.store.add(
      vscode.workspace.onDidChangeConfiguration((event) => event.affectsConfiguration('hookbench.retention.maxEvents') && (retained = retention())),
    );
    this.model = new ExplorerModel({
      paceMs,
      retainedEvents: () => retained,
      // An expanded instance is read as any client of its agent would, on the current serve process.
      openChannel: (instance) => (this.current ? localReader(this.current, instance) : undefined),
    });
    this.store.add(server.onDidChangeState(() => this.sync()));
    this.sync();
  }

  /** The model's changes, paced (at most one per `paceMs`) however many messages arrive. */
  get onDidChange(): Event<ExplorerChange> {
    return this.model.onDidChange;
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
      this.model.connect(client);
      // The feed's hello (on connect and every reconnect) has the model read the lists.
      client.onLive((message) => {
        this.model.apply(message);
        this.liveMessages.fire(message);
      });
      client.connectLive();
      this.current = client;
    } else {
      this.model.connect(undefined);
    }
    this.model.redraw();
  }

  /** Redraws the views from what is known (times age, a label's inputs changed). */
  schedule(): void {
    this.model.redraw();
  }

  /** Reads every list again from the serve process. */
  reload(): Promise<void> {
    this.reloads.fire();
    return this.model.reload();
  }

  dispose(): void {
    this.current?.dispose();
    this.model.dispose();
    this.liveMessages.dispose();
    this.reloads.dispose();
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
