/**
 * A WebSocket connection to an agent, as the SDK's `Connection`: id, uri, tags, per-connection
 * state, `send` and `close`. Sends pass through the instance's output gate.
 */

import type { Socket } from '../objects/hosted';

const OPEN = 1;

export class Connection<TState = unknown> {
  private connectionState: TState | null = null;
  tags: readonly string[] = [];
  /** Set from `shouldConnectionBeReadonly`. */
  readonly: boolean = false;
  /** Set from `shouldSendProtocolMessages`. */
  protocol: boolean = true;

  constructor(
    readonly id: string,
    readonly uri: string,
    private readonly socket: Socket,
    private readonly gate: (send: () => void) => void,
  ) {}

  get state(): TState | null {
    return this.connectionState;
  }

  setState(next: TState | null | ((previous: TState | null) => TState | null)): TState | null {
    this.connectionState = typeof next === 'function' ? (next as (p: TState | null) => TState | null)(this.connectionState) : next;
    return this.connectionState;
  }

  send(message: string | ArrayBuffer | Uint8Array): void {
    this.gate(() => {
      if (this.socket.readyState === OPEN) this.socket.send(message);
    });
  }

  close(code?: number, reason?: string): void {
    this.gate(() => this.socket.close(code, reason));
  }

  get isOpen(): boolean {
    return this.socket.readyState === OPEN;
  }
}
