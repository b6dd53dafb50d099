/**
 * Bounds on what clients may hold of the receiver at once: connections and request bytes in
 * flight, in all and per client, and how slowly a body may arrive. A body is buffered whole before
 * its signature can be checked, so without these 40 connections each sending 24 MiB but its last
 * byte held a gigabyte (docs/security.md, "Bounds").
 *
 * A client is who the connection comes from (localPeer.ts) and, for requests naming a public
 * `Host` (a tunnel's), the public as one client: every tunnel delivery arrives through one local
 * forwarder, so its address says nothing of who sent it.
 */
import type { IncomingMessage } from 'node:http';
import { isLoopbackHost, hostnameOf } from './access';
import { BodyTooLargeError } from './httpAdapter';
import type { Peer } from './localPeer';
import type { TimerHandle, Timers } from '../../core/timers';

export interface ReceiverLimits {
  /** Open connections in all. */
  readonly connections: number;
  /** Open connections of one client other than the owner (another user, a remote address). */
  readonly connectionsPerClient: number;
  /** Request body bytes buffered at once, in all. */
  readonly bytesInFlight: number;
  /** Request body bytes buffered at once for one client other than the owner, the public included. */
  readonly bytesInFlightPerClient: number;
  /** The longest a body may go without a byte before the request is answered 408. */
  readonly bodyIdleMs: number;
  /** The longest the request line and headers may take. */
  readonly headersMs: number;
  /** The longest a whole request (headers and body) may take. */
  readonly requestMs: number;
}

const MiB = 1024 * 1024;

/**
 * Room for the owner's own largest bodies (25 MiB each) several at once, and little for anyone
 * else: another user or the public holds at most one full-size body and a few small ones.
 */
export const DEFAULT_LIMITS: ReceiverLimits = {
  connections: 4096,
  connectionsPerClient: 64,
  bytesInFlight: 256 * MiB,
  bytesInFlightPerClient: 32 * MiB,
  bodyIdleMs: 10_000,
  headersMs: 10_000,
  requestMs: 60_000,
};

/** The owner's own tools share only the global bounds. */
export const OWNER = 'owner';

/** Who a connection's limits are counted against. */
export function connectionClient(peer: Peer): string {
  switch (peer.kind) {
    case 'owner':
      return OWNER;
    case 'other-user':
      return `uid ${peer.uid}`;
    case 'remote':
      return peer.address;
    case 'unverified':
      // A platform that cannot tell local users apart: all of them are one client, as trusted as the owner.
      return OWNER;
    case 'unknown':
      return 'an unnamed local client';
  }
}

/** Who a request's bytes are counted against: the public for a public Host, else the connection's client. */
export function requestClient(peer: Peer, hostHeader: string | undefined, boundHost: string): string {
  if (hostHeader) {
    const name = hostnameOf(hostHeader);
    if (!isLoopbackHost(name) && name !== boundHost.toLowerCase()) return 'the public (a tunnel Host)';
  }
  return connectionClient(peer);
}

/** Counts per client against a limit for each and one in all. */
export class Quota {
  private readonly used = new Map<string, number>();
  private total = 0;

  constructor(
    private readonly limitTotal: number,
    private readonly limitPerClient: number,
  ) {}

  /** Takes `amount` for `client`; false (and nothing taken) when it would pass a limit. */
  take(client: string, amount: number): boolean {
    const mine = this.used.get(client) ?? 0;
    if (this.total + amount > this.limitTotal) return false;
    if (client !== OWNER && mine + amount > this.limitPerClient) return false;
    this.used.set(client, mine + amount);
    this.total += amount;
    return true;
  }

  give(client: string, amount: number): void {
    const left = (this.used.get(client) ?? 0) - amount;
    if (left > 0) this.used.set(client, left);
    else this.used.delete(client);
    this.total = Math.max(0, this.total - amount);
  }

  held(client: string): number {
    return this.used.get(client) ?? 0;
  }
}

/** Too many bytes in flight for this client or in all: 503, so a provider retries later. */
export class BodyBudgetError extends Error {
  constructor(readonly client: string) {
    super(`too many request bytes in flight${client === OWNER ? '' : ` from ${client}`}; retry shortly`);
  }
}

/** A body that stopped arriving: 408. */
export class BodyIdleError extends Error {
  constructor(readonly idleMs: number) {
    super(`no byte of the request body for ${idleMs / 1000} s`);
  }
}

/** A body read within its bounds; `release` gives its bytes back once the request is answered. */
export interface BoundedBody {
  readonly body: Buffer;
  release(): void;
}

/**
 * Reads a body while counting its bytes against `bytes` for `client`: a declared length is taken
 * before the first byte is read (and before `accepted`, the 100 Continue), a chunked body as it arrives. Past a bound the request stops
 * being read (the caller answers and closes the connection) and the error says which bound.
 */
export function readBoundedBody(
  req: IncomingMessage,
  options: { limit: number; client: string; bytes: Quota; idleMs: number; timers: Timers; accepted?: () => void },
): Promise<BoundedBody> {
  const { limit, client, bytes } = options;
  let taken = 0;
  const release = () => {
    bytes.give(client, taken);
    taken = 0;
  };
  const reserve = (amount: number): boolean => {
    if (!bytes.take(client, amount)) return false;
    taken += amount;
    return true;
  };
  return new Promise<BoundedBody>((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) return reject(new BodyTooLargeError(limit, declared));
    if (Number.isFinite(declared) && declared > 0 && !reserve(declared)) return reject(new BodyBudgetError(client));
    // `Expect: 100-continue`: the client sends the body only once its size is within every bound.
    options.accepted?.();
    const chunks: Buffer[] = [];
    let size = 0;
    let idle: TimerHandle | undefined;
    const stop = (error: Error | undefined) => {
      idle?.cancel();
      req.off('data', onData).off('end', onEnd).off('error', stop);
      if (error === undefined) return resolve({ body: Buffer.concat(chunks, size), release });
      req.pause();
      release();
      reject(error);
    };
    const armIdle = () => {
      idle?.cancel();
      idle = options.timers.after(options.idleMs, () => stop(new BodyIdleError(options.idleMs)), { unref: true });
    };
    const onData = (chunk: Buffer) => {
      armIdle();
      size += chunk.length;
      if (size > limit) return stop(new BodyTooLargeError(limit));
      if (size > taken && !reserve(size - taken)) return stop(new BodyBudgetError(client));
      chunks.push(chunk);
    };
    const onEnd = () => stop(undefined);
    req.on('data', onData).on('end', onEnd).on('error', stop);
    armIdle();
  });
}
