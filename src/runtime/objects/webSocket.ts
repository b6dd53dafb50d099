/**
 * The Workers WebSocket API a worker or Durable Object uses: `new WebSocketPair()`, `accept()`,
 * `send`/`close`, message/close events, `serializeAttachment`/`deserializeAttachment`, and
 * `new Response(null, { status: 101, webSocket })`. The client end of a pair handed back in a
 * Response is bound by the runtime to the real socket the receiver upgraded.
 */
import { deserialize, serialize } from 'node:v8';
import type { Socket } from './hosted';

/** workerd's limit on a hibernatable WebSocket's attachment (web-socket.c++). */
export const MAX_ATTACHMENT_BYTES = 16_384;

/** Where a socket end's outbound frames go: its pair's other end or a real transport. */
interface Outlet {
  send(data: string | ArrayBuffer): void;
  close(code: number, reason: string): void;
}

/** Inbound frames of an end accepted by `ctx.acceptWebSocket`: the instance host handles them. */
export interface HibernationHooks {
  message(ws: WorkerWebSocket, data: string | ArrayBuffer): void;
  close(ws: WorkerWebSocket, code: number, reason: string, wasClean: boolean): void;
  error(ws: WorkerWebSocket, error: Error): void;
}

/** workerd's close reason for a peer gone without a close frame (web-socket.c++). */
export const DISCONNECTED_REASON = 'WebSocket disconnected without sending Close frame.';

type Inbound =
  | { kind: 'message'; data: string | ArrayBuffer }
  | { kind: 'close'; code: number; reason: string; wasClean: boolean }
  /** A transport error other than a plain disconnect: no close event follows (workerd). */
  | { kind: 'error'; error: Error };

export class WorkerWebSocket extends EventTarget {
  static readonly READY_STATE_CONNECTING = 0;
  static readonly READY_STATE_OPEN = 1;
  static readonly READY_STATE_CLOSING = 2;
  static readonly READY_STATE_CLOSED = 3;
  readyState = 1;
  readonly url: string | null = null;
  readonly protocol: string | null = '';
  readonly extensions: string | null = '';
  /** @internal The other end of the pair, or undefined once bound to a transport. */
  peer: WorkerWebSocket | undefined;
  /** @internal */
  outlet: Outlet | undefined;
  /** @internal Set once the end is accepted with `ctx.acceptWebSocket`. */
  hibernation: HibernationHooks | undefined;
  /** @internal The end was used in a Response (it stands for the client). */
  coupled = false;
  private accepted = false;
  private closeSent = false;
  private peerClosed = false;
  private readonly pending: Inbound[] = [];
  /** Set on the client end bound to a transport: what its pair sent reaches the real socket. */
  private relayTo: Outlet | undefined;
  private attachment: Uint8Array | undefined;

  accept(): void {
    if (this.hibernation) throw new TypeError("Can't accept() WebSocket after enabling hibernation.");
    if (this.accepted) return;
    this.accepted = true;
    for (const event of this.pending.splice(0)) this.dispatch(event);
  }

  /** @internal Whether `accept()` or `ctx.acceptWebSocket()` took this end. */
  get isAccepted(): boolean {
    return this.accepted || this.hibernation !== undefined;
  }

  send(data: string | ArrayBuffer | ArrayBufferView): void {
    if (!this.isAccepted) throw new TypeError('You must call one of accept() or state.acceptWebSocket() on this WebSocket before sending messages.');
    if (this.readyState !== 1) throw new TypeError("Can't call WebSocket send() after close().");
    const frame = typeof data === 'string' ? data : toArrayBuffer(data);
    this.outlet?.send(frame);
  }

  /**
   * Sends the close frame once. After the peer's close it is the answer (workerd leaves the
   * answer to the object; the receiver holds its own echo for it).
   */
  close(code = 1000, reason = ''): void {
    if (this.closeSent) return;
    this.closeSent = true;
    if (this.readyState < 2) this.readyState = 2;
    this.outlet?.close(code, reason);
  }

  serializeAttachment(value: unknown): void {
    const bytes = new Uint8Array(serialize(value));
    if (bytes.byteLength > MAX_ATTACHMENT_BYTES) {
      throw new Error(`A WebSocket 'attachment' cannot be larger than ${MAX_ATTACHMENT_BYTES} bytes.'attachment' was ${bytes.byteLength} bytes.`);
    }
    this.attachment = bytes;
  }

  deserializeAttachment(): unknown {
    return this.attachment === undefined ? null : deserialize(this.attachment);
  }

  /** @internal The attachment bytes, kept by the host across hibernation. */
  get attachmentBytes(): Uint8Array | undefined {
    return this.attachment;
  }

  set attachmentBytes(bytes: Uint8Array | undefined) {
    this.attachment = bytes;
  }

  /**
   * @internal The client end is bound to a transport: frames and a close its pair sent before the
   * 101 went out (a welcome message after `accept()`), and any still on their way, go to it in
   * order, as workerd queues them until the upgrade completes.
   */
  relay(outlet: Outlet): void {
    this.relayTo = outlet;
    for (const event of this.pending.splice(0)) this.receive(event);
  }

  /** @internal A frame or close from the other side. */
  receive(event: Inbound): void {
    if (this.relayTo) {
      if (event.kind === 'message') this.relayTo.send(event.data);
      else if (event.kind === 'close') this.relayTo.close(event.code, event.reason);
      return;
    }
    if (this.peerClosed) return;
    if (event.kind === 'error') {
      this.peerClosed = true;
      this.readyState = 3;
    }
    if (event.kind === 'close') {
      // (A pair's other end answering this end's close returned above: the close was told.)
      this.peerClosed = true;
      this.readyState = 3;
    }
    if (this.hibernation) {
      if (event.kind === 'message') this.hibernation.message(this, event.data);
      else if (event.kind === 'error') this.hibernation.error(this, event.error);
      else this.hibernation.close(this, event.code, event.reason, event.wasClean);
      return;
    }
    if (this.accepted) this.dispatch(event);
    else this.pending.push(event);
  }

  private dispatch(event: Inbound): void {
    if (event.kind === 'message') {
      this.dispatchEvent(new MessageEvent('message', { data: event.data }));
      return;
    }
    if (event.kind === 'error') {
      this.dispatchEvent(Object.assign(new Event('error'), { error: event.error, message: event.error.message }));
      return;
    }
    const close = Object.assign(new Event('close'), { code: event.code, reason: event.reason, wasClean: event.wasClean });
    this.dispatchEvent(close);
  }
}

function toArrayBuffer(data: ArrayBuffer | ArrayBufferView): ArrayBuffer {
  if (data instanceof ArrayBuffer) return data.slice(0);
  return data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) as ArrayBuffer;
}

/** Two ends wired to each other: what one sends, the other receives. */
export class WebSocketPair {
  readonly 0: WorkerWebSocket;
  readonly 1: WorkerWebSocket;

  constructor() {
    const client = new WorkerWebSocket();
    const server = new WorkerWebSocket();
    const wire = (from: WorkerWebSocket, to: WorkerWebSocket): void => {
      from.peer = to;
      from.outlet = {
        send: (data) => queueMicrotask(() => to.receive({ kind: 'message', data })),
        close: (code, reason) => queueMicrotask(() => to.receive({ kind: 'close', code, reason, wasClean: true })),
      };
    };
    wire(client, server);
    wire(server, client);
    this[0] = client;
    this[1] = server;
  }
}

/**
 * Binds the client end handed back in a 101 Response to the real socket: the server end's frames
 * go to the socket, and the socket's frames and close reach the server end. The peer's close is
 * answered by the object's own `close()` for a hibernatable end, and for an accept()ed one unless
 * `autoReplyToClose` (workerd's `web_socket_auto_reply_to_close`) echoes it first.
 */
export function bindToTransport(
  client: WorkerWebSocket,
  transport: Socket,
  autoReplyToClose: boolean,
): { message(data: string | Uint8Array): void; close(code: number, reason: string): void; error(error: Error): void; answersClose: boolean } {
  const server = client.peer;
  if (!server) throw new Error('the WebSocket in the Response is not the end of a WebSocketPair');
  server.outlet = {
    send: (data) => transport.send(data),
    close: (code, reason) => transport.close(code, reason),
  };
  server.peer = undefined;
  client.relay(server.outlet);
  return {
    answersClose: server.hibernation !== undefined || !autoReplyToClose,
    message: (data) => server.receive({ kind: 'message', data: typeof data === 'string' ? data : toArrayBuffer(data) }),
    close: (code, reason) =>
      server.receive(code === 1006 ? { kind: 'close', code, reason: DISCONNECTED_REASON, wasClean: false } : { kind: 'close', code, reason, wasClean: true }),
    error: (error) => server.receive({ kind: 'error', error }),
  };
}

/** `new WebSocketRequestResponsePair(request, response)` for `setWebSocketAutoResponse`. */
export class WebSocketRequestResponsePair {
  constructor(
    readonly request: string,
    readonly response: string,
  ) {}
}

const WEB_SOCKET = Symbol.for('hookbench.webSocket');

/**
 * The `Response` a worker sees: Node's, plus status 101 with a `webSocket` (which Node refuses),
 * kept when a Response is copied with `new Response(body, response)`.
 */
export class WorkerResponse extends Response {
  private readonly [WEB_SOCKET]: WorkerWebSocket | null;

  constructor(body?: ConstructorParameters<typeof Response>[0], init?: ResponseInit & { webSocket?: WorkerWebSocket | null }) {
    const webSocket = init?.webSocket ?? null;
    if (init?.status === 101) {
      if (!webSocket) throw new RangeError('Responses may only be constructed with status code 101 if they also have a webSocket');
      super(null, { ...init, status: 200 });
    } else {
      if (webSocket) throw new RangeError('Responses with a webSocket must have status code 101.');
      super(body, init);
    }
    if (webSocket) {
      if (webSocket.coupled) throw new TypeError("Can't return WebSocket in a Response after calling accept().");
      webSocket.coupled = true;
      Object.defineProperty(this, 'status', { value: 101 });
    }
    this[WEB_SOCKET] = webSocket;
  }

  get webSocket(): WorkerWebSocket | null {
    return this[WEB_SOCKET];
  }

  static override json(data: unknown, init?: ResponseInit): WorkerResponse {
    const headers = new Headers(init?.headers);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    return new WorkerResponse(JSON.stringify(data), { ...init, headers });
  }
}

/** The WebSocket a Response (ours or a plain one) carries, if any. */
export function webSocketOf(response: Response): WorkerWebSocket | null {
  return (response as Partial<WorkerResponse>)[WEB_SOCKET as never] ?? null;
}
