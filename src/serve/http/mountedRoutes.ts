/**
 * Routes mounted in front of the worker: the admin API (`/__hookbench/*`). The receiver hands such a
 * set the requests it says it handles, their body read within the limit it gives, and the WebSocket
 * upgrades under it; who may call those routes, with which token, and what they answer are the
 * set's own policy, never the receiver's.
 */
import type * as http from 'node:http';
import type { Duplex } from 'node:stream';

export interface MountedRoutes {
  /** Whether a request to `pathname` is this set's. */
  handles(pathname: string): boolean;
  /** The most body bytes a request may send, when less than the receiver allows. */
  bodyLimit(method: string | undefined, pathname: string): number | undefined;
  /** Answers a request whose body went over its limit; returns the one-line reason it gave. */
  refuseBody(res: http.ServerResponse, method: string | undefined, pathname: string, limit: number, declared: number | undefined): string;
  handle(req: http.IncomingMessage, res: http.ServerResponse, url: URL, body: Buffer): Promise<void>;
  upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer, url: URL): void;
  /** The receiver is closing: end what the set keeps open (the live feed). */
  close(): void;
}
