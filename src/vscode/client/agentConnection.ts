/**
 * A client of the agents WebSocket protocol, as any client of an agent: the state from
 * `cf_agent_state` frames, and RPC calls answered by `rpc` frames (each frame declared in
 * src/core/contract/agentsProtocol.ts, beside the Agent's side). Reconnects while open, unless the
 * server refused the upgrade with a 4xx (a worker with no agents route): asking again would be
 * refused again.
 */
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { isRefusedCall, parseServerFrame, rpcCallFrame } from '../../core/contract/agentsProtocol';
import { Emitter } from '../../core/events';

export class AgentConnection {
  private socket: WebSocket | undefined;
  private readonly pending = new Map<string, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly stateChanged = new Emitter<unknown>();
  readonly onDidChangeState = this.stateChanged.event;
  private closed = false;
  private opening: Promise<boolean>;
  state: unknown = undefined;
  error: string | undefined;
  /** True once the server refused the upgrade with a 4xx: the connection gave up. */
  refused = false;

  constructor(
    readonly url: string,
    private readonly headers: Record<string, string> = {},
  ) {
    this.opening = this.connect();
  }

  private connect(): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    // No permessage-deflate: the channel's messages are small JSON, and inflating each one was the
    // extension host's largest single cost at 200 webhooks a second (docs/performance.md, "The
    // explorer in the extension host").
    const socket = new WebSocket(this.url, { headers: this.headers, perMessageDeflate: false });
    this.socket = socket;
    return new Promise<boolean>((settle) => {
      socket.on('open', () => {
        this.error = undefined;
        settle(true);
      });
      socket.on('unexpected-response', (_request, response) => {
        if (response.statusCode !== undefined && response.statusCode >= 400 && response.statusCode < 500) this.refused = true;
        this.error = `the upgrade was answered ${response.statusCode ?? '?'}`;
        response.resume();
        socket.terminate();
      });
      socket.on('message', (data) => this.receive(data.toString()));
      socket.on('error', (error) => {
        this.error = error.message;
        this.stateChanged.fire(this.state);
      });
      socket.on('close', () => {
        settle(false);
        for (const { reject } of this.pending.values()) reject(new Error('connection closed'));
        this.pending.clear();
        this.socket = undefined;
        if (!this.closed && !this.refused) {
          setTimeout(() => {
            this.opening = this.connect();
          }, 2000).unref();
        }
      });
    });
  }

  /** Resolves true once the socket is open, false when this attempt failed. */
  opened(): Promise<boolean> {
    if (this.socket?.readyState === WebSocket.OPEN) return Promise.resolve(true);
    return this.opening;
  }

  private receive(text: string): void {
    const frame = parseServerFrame(text);
    if (frame.kind === 'state') {
      this.state = frame.state;
      this.stateChanged.fire(frame.state);
    } else if (frame.kind === 'rpc') {
      const { answer } = frame;
      const waiter = this.pending.get(answer.id);
      if (!waiter || !answer.final) return;
      this.pending.delete(answer.id);
      if (answer.success) waiter.resolve(answer.result);
      else waiter.reject(new RpcError(answer.error));
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
      socket.send(rpcCallFrame({ id, method, args }));
    });
  }

  dispose(): void {
    this.closed = true;
    this.socket?.close(1000, 'done');
    this.stateChanged.dispose();
  }
}

/** The agent answered an RPC with `success: false` (its message is the agent's). */
export class RpcError extends Error {
  /** The SDK's answer for a method that does not exist or is not `@callable`. */
  get notCallable(): boolean {
    return isRefusedCall(this.message);
  }
}
