/**
 * Deployed workers the Agents view shows beside the local receiver: a base URL, the agent's URL
 * segment and the entity names to watch, remembered per workspace. Each entity is read like a
 * local one (client/instanceReader.ts): one agents-protocol connection, state from its broadcast,
 * events from its `getEvents` callable; a deployed worker has no admin API to fall back on.
 */
import * as vscode from 'vscode';
import { Emitter } from '../../core/events';
import { agentUrl, InstanceReader } from '../client/instanceReader';

export interface AttachedWorker {
  readonly baseUrl: string;
  readonly agent: string;
  readonly names: readonly string[];
}

const KEY = 'hookbench.attachedWorkers';

export class AttachedWorkers implements vscode.Disposable {
  private readonly connections = new Map<string, InstanceReader>();
  private readonly changed = new Emitter<void>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly memento: vscode.Memento) {
    for (const worker of this.list()) this.open(worker);
    this.updateContext();
  }

  /** `hookbench.hasAttached`: Detach is offered only when there is something to detach. */
  private updateContext(): void {
    void vscode.commands.executeCommand('setContext', 'hookbench.hasAttached', this.list().length > 0);
  }

  list(): AttachedWorker[] {
    return this.memento.get<AttachedWorker[]>(KEY, []);
  }

  async attach(worker: AttachedWorker): Promise<void> {
    const others = this.list().filter((w) => !(w.baseUrl === worker.baseUrl && w.agent === worker.agent));
    await this.memento.update(KEY, [...others, worker]);
    this.open(worker);
    this.updateContext();
    this.changed.fire();
  }

  async detach(baseUrl: string): Promise<void> {
    await this.memento.update(
      KEY,
      this.list().filter((w) => w.baseUrl !== baseUrl),
    );
    for (const [key, connection] of this.connections) {
      if (key.startsWith(`${baseUrl}|`)) {
        connection.dispose();
        this.connections.delete(key);
      }
    }
    this.updateContext();
    this.changed.fire();
  }

  connection(worker: AttachedWorker, name: string): InstanceReader | undefined {
    return this.connections.get(`${worker.baseUrl}|${worker.agent}|${name}`);
  }

  private open(worker: AttachedWorker): void {
    for (const name of worker.names) {
      const key = `${worker.baseUrl}|${worker.agent}|${name}`;
      if (this.connections.has(key)) continue;
      const connection = new InstanceReader(agentUrl(worker.baseUrl, worker.agent, name));
      connection.onDidChangeState(() => this.changed.fire());
      this.connections.set(key, connection);
    }
  }

  dispose(): void {
    for (const connection of this.connections.values()) connection.dispose();
    this.connections.clear();
    this.changed.dispose();
  }
}
