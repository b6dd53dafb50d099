/**
 * The hibernatable WebSockets of one Durable Object instance, kept by its host rather than by
 * the object: they stay connected while the instance is evicted (hibernated), and the next frame
 * wakes it and reaches `webSocketMessage` on a fresh `WebSocket` object carrying the same tags and
 * attachment, as workerd's HibernationManager does. The auto-response pair is answered here
 * without waking the instance.
 */
import { WorkerWebSocket, type WebSocketRequestResponsePair } from './webSocket';

/** workerd's limits (actor-state.c++, hibernation-manager.h). */
export const MAX_TAGS_PER_CONNECTION = 10;
export const MAX_TAG_LENGTH = 256;
export const MAX_AUTO_RESPONSE_BYTES = 2048;

interface Hibernated {
  /** The server end first accepted: the runtime bound its outlet to the real socket. */
  readonly origin: WorkerWebSocket;
  readonly tags: readonly string[];
  attachment: Uint8Array | undefined;
  autoResponseAt: Date | null;
  /** The object the current wake's code sees, made on demand. */
  live: WorkerWebSocket | undefined;
}

export interface HibernationEvents {
  message(ws: () => WorkerWebSocket, data: string | ArrayBuffer): void;
  close(ws: () => WorkerWebSocket, code: number, reason: string, wasClean: boolean): void;
  error(ws: () => WorkerWebSocket, error: Error): void;
}

export class HibernatableSockets {
  private readonly sockets = new Set<Hibernated>();
  private readonly byObject = new WeakMap<WorkerWebSocket, Hibernated>();
  private autoResponse: WebSocketRequestResponsePair | undefined;
  /** `setHibernatableWebSocketEventTimeout`: a handler running longer resets the object. */
  eventTimeout: number | null = null;

  constructor(
    private readonly events: HibernationEvents,
    private readonly now: () => number,
  ) {}

  get size(): number {
    return this.sockets.size;
  }

  accept(ws: WorkerWebSocket, tags: readonly string[] = []): void {
    if (!(ws instanceof WorkerWebSocket)) throw new TypeError('acceptWebSocket() expects a WebSocket');
    if (ws.isAccepted) throw new Error('Cannot call `acceptWebSocket()` if the WebSocket was already accepted via `accept()`');
    if (!ws.peer || ws.peer.coupled)
      throw new Error('Cannot call `acceptWebSocket()` on this WebSocket because its pair has already been accepted or used in a Response.');
    const distinct: string[] = [];
    for (const tag of tags) {
      if (distinct.length >= MAX_TAGS_PER_CONNECTION) throw new Error(`a Hibernatable WebSocket cannot have more than ${MAX_TAGS_PER_CONNECTION} tags`);
      if (String(tag).length > MAX_TAG_LENGTH) throw new Error(`"${tag}" is longer than the max tag length (${MAX_TAG_LENGTH} characters).`);
      if (!distinct.includes(String(tag))) distinct.push(String(tag));
    }
    const record: Hibernated = { origin: ws, tags: distinct, attachment: undefined, autoResponseAt: null, live: ws };
    this.sockets.add(record);
    this.byObject.set(ws, record);
    ws.hibernation = {
      message: (_ws, data) => this.onMessage(record, data),
      close: (_ws, code, reason, wasClean) => {
        this.sockets.delete(record);
        const ws = this.materialize(record);
        ws.readyState = 3;
        this.events.close(() => ws, code, reason, wasClean);
      },
      // A transport error ends the socket too: webSocketError instead of webSocketClose.
      error: (_ws, error) => {
        this.sockets.delete(record);
        const ws = this.materialize(record);
        ws.readyState = 3;
        this.events.error(() => ws, error);
      },
    };
  }

  private onMessage(record: Hibernated, data: string | ArrayBuffer): void {
    const auto = this.autoResponse;
    if (auto && typeof data === 'string' && data === auto.request) {
      record.origin.outlet?.send(auto.response);
      record.autoResponseAt = new Date(this.now());
      return;
    }
    this.events.message(() => this.materialize(record), data);
  }

  /** The object for `record` in this wake: the original, or a new one after hibernation. */
  private materialize(record: Hibernated): WorkerWebSocket {
    if (record.live) return record.live;
    const ws = new WorkerWebSocket();
    ws.outlet = {
      send: (data) => record.origin.outlet?.send(data),
      close: (code, reason) => record.origin.outlet?.close(code, reason),
    };
    ws.hibernation = record.origin.hibernation;
    ws.attachmentBytes = record.attachment;
    record.live = ws;
    this.byObject.set(ws, record);
    return ws;
  }

  webSockets(tag?: string): WorkerWebSocket[] {
    return [...this.sockets].filter((r) => tag === undefined || r.tags.includes(tag)).map((r) => this.materialize(r));
  }

  tags(ws: WorkerWebSocket): string[] {
    const record = this.byObject.get(ws);
    if (!record) throw new Error('only hibernatable websockets can have tags.');
    return [...record.tags];
  }

  autoResponseTimestamp(ws: WorkerWebSocket): Date | null {
    return this.byObject.get(ws)?.autoResponseAt ?? null;
  }

  setAutoResponse(pair?: WebSocketRequestResponsePair): void {
    if (pair === undefined) {
      this.autoResponse = undefined;
      return;
    }
    for (const [label, text] of [
      ['Request', pair.request],
      ['Response', pair.response],
    ] as const) {
      const size = Buffer.byteLength(text);
      if (size > MAX_AUTO_RESPONSE_BYTES)
        throw new RangeError(`${label} cannot be larger than ${MAX_AUTO_RESPONSE_BYTES} bytes. A ${label.toLowerCase()} of size ${size} was provided.`);
    }
    this.autoResponse = pair;
  }

  getAutoResponse(): WebSocketRequestResponsePair | null {
    return this.autoResponse ?? null;
  }

  /** The instance is evicted: keep each socket's attachment, drop the objects of this wake. */
  hibernate(): void {
    for (const record of this.sockets) {
      if (record.live) record.attachment = record.live.attachmentBytes;
      record.live = undefined;
    }
  }

  /** Closes every socket (the host shuts down; 1012 tells clients to reconnect). */
  closeAll(code: number, reason: string): void {
    for (const record of this.sockets) record.origin.outlet?.close(code, reason);
    this.sockets.clear();
  }
}
