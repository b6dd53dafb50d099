/**
 * What the host of a Durable Object knows of it beyond the platform's surface (`fetch`, `alarm`,
 * RPC): a class may offer the host a few hooks under `HOSTED` — the Agents SDK's `Agent` does — to
 * start once per wake before its first event (`onStart`), to take WebSocket connections of its own
 * protocol, and to run its due jobs. The host imports no class of the SDK, so the SDK's room
 * depends on this one and never the other way round (docs/architecture.md).
 */

/** The key an object's hooks are found under. */
export const HOSTED: unique symbol = Symbol('hookbench.hosted');

/** The transport under a connection (a `ws` WebSocket in the serve process). */
export interface Socket {
  send(data: string | ArrayBuffer | Uint8Array): void;
  close(code?: number, reason?: string): void;
  readonly readyState: number;
}

/** One open connection the object took: the host hands it each frame and the close. */
export interface HostedConnection {
  message(data: string | Uint8Array): Promise<void>;
  close(code: number, reason: string, wasClean: boolean): Promise<void>;
}

export interface HostedHooks {
  /** Once per wake, before the object's first event: `props` is what its router sent (routeAgentRequest's). */
  start(props: unknown): Promise<void>;
  /**
   * A WebSocket to the object is open: the object speaks its protocol on it. `gate` holds each
   * frame until the writes made before it are durable (the output gate).
   */
  connect(socket: Socket, request: Request, gate: (send: () => void) => void): Promise<HostedConnection>;
  /** Runs the jobs (schedules, queued items) that are due. */
  runJobs(): Promise<void>;
}

/** An object that offers hooks. */
export interface Hosted {
  [HOSTED](): HostedHooks;
}

/** The object's hooks, or undefined for a plain Durable Object. */
export function hooksOf(object: unknown): HostedHooks | undefined {
  const offer = (object as Partial<Hosted> | null)?.[HOSTED];
  return typeof offer === 'function' ? offer.call(object) : undefined;
}

/** Whether a class's instances take WebSocket upgrades themselves (through their hooks). */
export function takesConnections(cls: { prototype: unknown }): boolean {
  return typeof (cls.prototype as Partial<Hosted> | null)?.[HOSTED] === 'function';
}
