/**
 * A client of the agents WebSocket protocol, for workers Hookbench does not run (a deployed one):
 * the state from `cf_agent_state` frames, and RPC calls answered by `rpc` frames. Reconnects while
 * open.
 */
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { Emitter } from '../../core/events';

type RpcFrame = { type: 'rpc'; id: string; success: boolean; result?: unknown; error?: string; done?: boolean };

export class AgentConnection {
  private socket: WebSocket | undefined;
  private readonly pending = new Map<string, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly stateChanged = new Emitter<unknown>();
  readonly onDidChangeState = this.stateChanged.event;
  private closed = false;
  state: unknown = undefined;
  error: string | undefined;

  constructor(readonly url: string) {
    this.connect();
  }

  private connect(): void {
    if (this.closed) return;
    const socket = new WebSocket(this.url);
    this.socket = socket;
    socket.on('open', () => (this.error = undefined));
    socket.on('message', (data) => this.receive(data.toString()));
    socket.on('error', (error) => {
      this.error = error.message;
      this.stateChanged.fire(this.state);
    });
    socket.on('close', () => {
      for (const { reject } of this.pending.values()) reject(new Error('connection closed'));
      this.pending.clear();
      this.socket = undefined;
      if (!this.closed) setTimeout(() => this.connect(), 2000).unref();
    });
  }

  private receive(text: string): void {
    let frame: { type?: string; state?: unknown };
    try {
      frame = JSON.parse(text) as typeof frame;
    } catch {
      return;
    }
    if (frame.type === 'cf_agent_state') {
      this.state = frame.state;
      this.stateChanged.fire(frame.state);
    } else if (frame.type === 'rpc') {
      const rpc = frame as RpcFrame;
      const waiter = this.pending.get(rpc.id);
      if (!waiter || rpc.done === false) return;
      this.pending.delete(rpc.id);
      if (rpc.success) waiter.resolve(rpc.result);
      else waiter.reject(new Error(rpc.error ?? 'RPC failed'));
    }
  }

  /** Calls a @callable method; rejects after `timeoutMs`. */
  call(method: string, args: unknown[] = [], timeoutMs = 10_000): Promise<unknown> {
    const socket = this.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN) return Promise.reject(new Error(this.error ?? 'not connected'));
    const id = randomUUID();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`RPC call to ${method} timed out after ${timeoutMs}ms`));
      }, timeoutMs);
      this.pending.set(id, {
        resolve: (v) => (clearTimeout(timer), resolve(v)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      });
      socket.send(JSON.stringify({ type: 'rpc', id, method, args }));
    });
  }

  dispose(): void {
    this.closed = true;
    this.socket?.close(1000, 'done');
    this.stateChanged.dispose();
  }
}
