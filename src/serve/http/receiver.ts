/**
 * The serve process's HTTP and WebSocket front: every request goes to the worker's `fetch`; an
 * upgrade the worker accepts becomes an agents-protocol WebSocket. Every upgrade and every
 * non-webhook route passes the origin and host check first (access.ts). A failure in user code
 * answers 500 and never takes the process down; the stack goes to the log, and into the body only
 * for a loopback client that is not a browser, as `wrangler dev` shows it.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { answerCloseByWorker } from './closeAnswer';
import { agreeDeflate } from './deflateOffer';
import { DUPLICATE_NOTE, OUTCOME_HEADER } from '../../core/contract/deliveries';
import { openDeliveryChannel, receivedNotes, type DeliveryNotes } from '../../core/contract/notes';
import { requestEventType } from '../../core/signing';
import type { Logger } from '../../core/log';
import { InstanceClosedError, StorageWriteError } from '../../runtime/errors';
import { UPGRADE, type UpgradeResponse } from '../../runtime/objects/connections';
import { plainSmallFrames } from './plainSmallFrames';
import type { WorkerRuntime } from '../../runtime/worker/workerRuntime';
import { asWorkerRequest } from '../../runtime/worker/incomingRequest';
import type { MountedRoutes } from './mountedRoutes';
import { checkAccess, DEFAULT_POLICY, mayShowStack, type AccessPolicy } from '../net/access';
import { PeerIdentifier, type Peer } from '../net/localPeer';
import { LOGIN_PATH, loginAnswer, showsCredential, withoutCredential } from '../net/localCredential';
import {
  BodyBudgetError,
  BodyIdleError,
  connectionClient,
  DEFAULT_LIMITS,
  OWNER,
  Quota,
  readBoundedBody,
  requestClient,
  type BoundedBody,
  type ReceiverLimits,
} from '../net/requestBounds';
import { realTimers, type Timers } from '../../core/timers';
import type { DeliveryLog } from '../deliveryLog';
import type { DeliveryRetries } from '../deliveryRetries';
import { deliverySource, withoutSourceHeader } from './deliverySource';
import { BodyTooLargeError, requestUrl, toRequest, writeHtml, writeResponse, writeText } from '../net/httpAdapter';
import { acceptsErrorPage, errorPage } from './errorPage';

export interface ReceiverOptions {
  readonly host: string;
  readonly port: number;
  readonly runtime: () => Promise<WorkerRuntime>;
  readonly logger: Logger;
  readonly bodyLimit?: number;
  /** The admin API, mounted in front of the worker. */
  readonly admin?: MountedRoutes;
  readonly deliveries?: DeliveryLog;
  /** Who may reach the non-webhook routes and WebSockets (default: loopback and VS Code only). */
  readonly access?: AccessPolicy;
  /** Connections, bytes in flight and slow-body bounds (requestBounds.ts). */
  readonly limits?: Partial<ReceiverLimits>;
  readonly timers?: Timers;
  /** Names each connection's user (localPeer.ts); a platform's own by default. */
  readonly peers?: PeerIdentifier;
  /** Sends again what a provider would retry (`serve --retries`); absent: nothing is retried. */
  readonly retries?: DeliveryRetries;
  /** Told of each request whose handler threw (answered 500). */
  readonly onHandlerError?: (method: string, path: string, error: unknown) => void;
}

/**
 * Cloudflare closes a WebSocket whose received message is over 1 MiB with 1009 "Message is too
 * large"; ws does the same at `maxPayload`, counted after permessage-deflate inflates it.
 */
export const MAX_WEBSOCKET_MESSAGE = 1024 * 1024;
/** Open WebSockets one client address may hold at once. */
export const MAX_WEBSOCKETS_PER_CLIENT = 1024;

/** One exchange as the deliveries log keeps it: the request, the answer, and when it started. */
interface Exchange {
  readonly req: http.IncomingMessage;
  readonly url: URL;
  readonly body: Buffer;
  /** `performance.now()` when the request arrived. */
  readonly started: number;
  readonly status: number;
  readonly responseHeaders: Record<string, string>;
  readonly responseBody: string;
  /** What the worker noted on its response (notes.ts); none for an answer the receiver made itself. */
  readonly notes: DeliveryNotes;
}

const NO_NOTES: DeliveryNotes = Object.freeze({});

export class Receiver {
  private readonly server: http.Server;
  private readonly wss = new WebSocketServer({ noServer: true, perMessageDeflate: true, maxPayload: MAX_WEBSOCKET_MESSAGE, skipUTF8Validation: true });
  private readonly socketsPerClient = new Map<string, number>();
  private readonly peers: PeerIdentifier;
  private readonly limits: ReceiverLimits;
  private readonly connections: Quota;
  private readonly bytes: Quota;
  private origin = '';

  constructor(private readonly options: ReceiverOptions) {
    const limits = (this.limits = { ...DEFAULT_LIMITS, ...options.limits });
    this.peers = options.peers ?? new PeerIdentifier();
    this.connections = new Quota(limits.connections, limits.connectionsPerClient);
    this.bytes = new Quota(limits.bytesInFlight, limits.bytesInFlightPerClient);
    // Node checks these two timeouts every connectionsCheckingInterval (30 s unless set).
    this.server = http.createServer(
      {
        headersTimeout: limits.headersMs,
        requestTimeout: limits.requestMs,
        keepAliveTimeout: 5_000,
        connectionsCheckingInterval: Math.min(1_000, limits.headersMs),
      },
      (req, res) => void this.handle(req, res),
    );
    this.server.on('connection', (socket: Socket) => void this.admit(socket));
    this.server.on('upgrade', (req, socket, head) => void this.upgrade(req, socket, head));
    // A client that sends `Expect: 100-continue` (curl does for bodies over 1 MiB) waits for the
    // go-ahead: it comes once the body's declared size is within the route's limit, so a body
    // over it is refused before it is sent at all.
    this.server.on('checkContinue', (req, res) => void this.handle(req, res, true));
    this.server.on('clientError', (_error, socket) => socket.destroy());
  }

  /** Counts a new connection against its client's bound, once its peer is known; past it, closes it. */
  private async admit(socket: Socket): Promise<void> {
    const client = connectionClient(await this.peers.identify(socket));
    if (socket.destroyed) return;
    if (!this.connections.take(client, 1)) {
      this.options.logger.warn(`[security] closed a connection from ${client === OWNER ? 'this user' : client}: too many open connections`);
      socket.destroy();
      return;
    }
    socket.once('close', () => this.connections.give(client, 1));
  }

  /** Starts listening; resolves with the URL actually bound (port 0 picks a free one). */
  listen(): Promise<string> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.options.port, this.options.host, () => {
        const { port } = this.server.address() as AddressInfo;
        const host = this.options.host.includes(':') ? `[${this.options.host}]` : this.options.host;
        this.origin = `http://${host}:${port}`;
        resolve(this.origin);
      });
    });
  }

  /** Where a client on this machine reaches it, `ip:port` (IPv6 in brackets); a wildcard address as loopback. */
  get localAddress(): string {
    const { address, port } = this.server.address() as AddressInfo;
    const ip = address === '0.0.0.0' ? '127.0.0.1' : address === '::' ? '::1' : address;
    return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
  }

  /** The origin, host and user check (access.ts): undefined when allowed, else the 403's text, the reason logged. */
  private refusal(req: http.IncomingMessage, url: URL, upgrade: boolean, peer: Peer): string | undefined {
    const token = this.policy.requireToken;
    const credential = token !== undefined && showsCredential(req.headers, url, token);
    const access = checkAccess(req.headers, url.pathname, { boundHost: this.options.host, policy: this.policy, upgrade, peer, credential });
    if (access.allowed) return undefined;
    this.options.logger.warn(`[security] refused ${upgrade ? 'a WebSocket to' : req.method} ${url.pathname}: ${access.reason}`);
    return access.answer;
  }

  private get policy(): AccessPolicy {
    return this.options.access ?? DEFAULT_POLICY;
  }

  /** The worker's view of a request: the owner's credential taken off (localCredential.ts). */
  private workerRequest(req: http.IncomingMessage, url: URL, body: Buffer | undefined): Request {
    const token = this.policy.requireToken;
    if (token === undefined) return asWorkerRequest(toRequest(req, url.toString(), body), req.socket.remoteAddress);
    const clean = withoutCredential(url.toString(), req.rawHeaders, token);
    return asWorkerRequest(toRequest(req, clean.url, body, clean.rawHeaders), req.socket.remoteAddress);
  }

  /** The body within its bounds, or the answer already written (413, 503, 408, 400) and undefined. */
  private async body(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    url: URL,
    peer: Peer,
    started: number,
    admin: MountedRoutes | undefined,
    expectsContinue: boolean,
  ): Promise<BoundedBody | undefined> {
    const client = requestClient(peer, req.headers.host, this.options.host);
    const limit = admin?.bodyLimit(req.method, url.pathname) ?? this.options.bodyLimit ?? 25 * 1024 * 1024;
    try {
      return await readBoundedBody(req, {
        limit,
        client,
        bytes: this.bytes,
        idleMs: this.limits.bodyIdleMs,
        timers: this.options.timers ?? realTimers,
        accepted: expectsContinue ? () => res.writeContinue() : undefined,
      });
    } catch (error) {
      if (error instanceof BodyTooLargeError && admin) {
        // The admin API answers in JSON, and says why (the sink's per-capture cap).
        res.setHeader('connection', 'close');
        const reason = admin.refuseBody(res, req.method, url.pathname, error.limit, error.declared);
        res.once('finish', () => req.socket.destroySoon());
        this.record({ req, url, body: Buffer.alloc(0), started, status: res.statusCode, responseHeaders: {}, responseBody: reason, notes: NO_NOTES });
        return undefined;
      }
      const [status, text] =
        error instanceof BodyTooLargeError
          ? [413, 'Payload Too Large']
          : error instanceof BodyBudgetError
            ? [503, `Service Unavailable: ${error.message}`]
            : error instanceof BodyIdleError
              ? [408, `Request Timeout: ${error.message}`]
              : [400, 'Bad Request'];
      if (status !== 400) this.options.logger.warn(`[security] ${req.method} ${url.pathname}: ${text}`);
      // What is left of the body is not read: the connection closes after the answer.
      res.setHeader('connection', 'close');
      if (status === 503) res.setHeader('retry-after', '1');
      writeText(res, status, text);
      res.once('finish', () => req.socket.destroySoon());
      this.record({ req, url, body: Buffer.alloc(0), started, status, responseHeaders: {}, responseBody: text, notes: NO_NOTES });
      return undefined;
    }
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse, expectsContinue = false): Promise<void> {
    const started = performance.now();
    let url: URL;
    try {
      url = new URL(requestUrl(req, this.origin));
    } catch {
      req.resume();
      return writeText(res, 400, 'Bad Request');
    }
    const peer = await this.peers.identify(req.socket);
    const refused = this.refusal(req, url, false, peer);
    if (refused !== undefined) {
      // Refused before a byte of the body is read; the connection closes after the answer.
      res.setHeader('connection', 'close');
      writeText(res, 403, refused);
      res.once('finish', () => req.socket.destroySoon());
      this.record({ req, url, body: Buffer.alloc(0), started, status: 403, responseHeaders: {}, responseBody: refused, notes: NO_NOTES });
      return;
    }
    const token = this.policy.requireToken;
    if (url.pathname === LOGIN_PATH && token !== undefined) {
      // Reached only with the token (the check above): the browser gets its session cookie.
      const login = loginAnswer(url, token);
      res.writeHead(login.status, login.headers);
      return void res.end(login.body);
    }
    const admin = this.options.admin?.handles(url.pathname) ? this.options.admin : undefined;
    const bounded = await this.body(req, res, url, peer, started, admin, expectsContinue);
    if (!bounded) return;
    try {
      await this.answer(req, res, url, bounded.body, started, admin);
    } finally {
      bounded.release();
    }
  }

  private async answer(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    url: URL,
    body: Buffer,
    started: number,
    admin: MountedRoutes | undefined,
  ): Promise<void> {
    if (admin) return admin.handle(req, res, url, body);
    let status = 500;
    let responseHeaders: Record<string, string> | undefined;
    let responseBody = '';
    let notes = NO_NOTES;
    try {
      const runtime = await this.options.runtime();
      const request = this.workerRequest(req, url, body);
      const channel = openDeliveryChannel(request);
      const response = await runtime.fetch(request);
      notes = receivedNotes(channel);
      responseHeaders = headersOf(response.headers);
      status = response.status;
      if (notes.stored === false) {
        // Still 200, so the provider stops retrying; the sender (a replay, a test) learns it was not processed again.
        responseHeaders[OUTCOME_HEADER] = 'duplicate';
        this.options.logger.info(`[receiver] ${req.method} ${url.pathname}: ${DUPLICATE_NOTE} (${notes.event ?? ''})`);
      }
      if (isStreaming(response)) {
        responseBody = '(streamed)';
        await writeResponse(res, response, responseHeaders);
      } else {
        const bytes = Buffer.from(await response.arrayBuffer());
        responseBody = bytes.toString('utf8');
        const cookies = response.headers.getSetCookie();
        res.writeHead(status, response.statusText || undefined, cookies.length > 0 ? { ...responseHeaders, 'set-cookie': cookies } : responseHeaders);
        res.end(bytes);
      }
    } catch (error) {
      const retry = unavailable(error);
      if (retry) {
        // Providers retry a 503: the delivery comes back once the disk takes writes again, or
        // reaches the reloaded worker.
        this.options.logger.error(`[receiver] ${req.method} ${url.pathname}: ${retry.error.message}`);
        status = 503;
        responseBody = `Service Unavailable: ${retry.error.message}`;
        if (!res.headersSent) res.setHeader('retry-after', String(retry.after));
        writeText(res, 503, responseBody);
      } else {
        const stack = (error as Error)?.stack ?? String(error);
        this.options.logger.error(`[receiver] ${req.method} ${url.pathname}: ${stack}`);
        this.options.onHandlerError?.(req.method ?? 'GET', url.pathname, error);
        const shown = mayShowStack(req.headers, req.socket.remoteAddress);
        if (shown && acceptsErrorPage(req.headers)) {
          responseBody = errorPage(error, req.method ?? 'GET', url.toString());
          writeHtml(res, 500, responseBody);
        } else {
          responseBody = shown ? stack : 'Internal Server Error (the stack is in the Hookbench log)';
          writeText(res, 500, responseBody);
        }
      }
    }
    this.record({ req, url, body, started, status, responseHeaders: responseHeaders ?? {}, responseBody, notes });
  }

  private record({ req, url, body, started, status, responseHeaders, responseBody, notes }: Exchange): void {
    if (!this.options.deliveries) return;
    const requestHeaders: Record<string, string> = {};
    for (let i = 0; i < req.rawHeaders.length; i += 2) requestHeaders[req.rawHeaders[i]!] = req.rawHeaders[i + 1]!;
    const source = deliverySource(req.headers, notes.verification ?? null);
    const durationMs = performance.now() - started;
    const nextRetry = this.options.retries?.plan({ provider: notes.provider ?? null, status, durationMs, source, requestHeaders });
    try {
      const recorded = this.options.deliveries.record({
        time: new Date().toISOString(),
        method: req.method ?? 'GET',
        path: url.pathname + url.search,
        requestHeaders: withoutSourceHeader(requestHeaders),
        requestBody: body,
        status,
        responseHeaders,
        responseBody,
        durationMs,
        provider: notes.provider ?? null,
        entity: notes.entity ?? null,
        verification: notes.verification ?? null,
        event: notes.event ?? null,
        // Found by the worker where it checked the delivery; read here only when it noted nothing (a user's worker).
        eventType: notes.eventType ?? requestEventType(notes.provider, requestHeaders, body) ?? null,
        ...(notes.stored === false ? { duplicate: true } : {}),
        ...(source ? { source } : {}),
        ...(nextRetry ? { nextRetry } : {}),
      });
      if (nextRetry) this.options.retries?.schedule(recorded, body, nextRetry);
    } catch (error) {
      this.options.logger.error(`[receiver] could not record a delivery: ${(error as Error).message}`);
    }
  }

  private async upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    socket.on('error', () => socket.destroy());
    let url: URL;
    try {
      url = new URL(requestUrl(req, this.origin));
    } catch {
      return rejectUpgrade(socket, 400, 'Bad Request');
    }
    const refused = this.refusal(req, url, true, await this.peers.identify(req.socket));
    if (refused !== undefined) return rejectUpgrade(socket, 403, refused);
    const client = (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
    if ((this.socketsPerClient.get(client) ?? 0) >= MAX_WEBSOCKETS_PER_CLIENT) {
      this.options.logger.warn(`[security] refused a WebSocket to ${url.pathname}: ${client} already holds ${MAX_WEBSOCKETS_PER_CLIENT}`);
      return rejectUpgrade(socket, 429, `Too many WebSockets from ${client} (at most ${MAX_WEBSOCKETS_PER_CLIENT} open)`);
    }
    if (this.options.admin?.handles(url.pathname)) return this.options.admin.upgrade(req, socket, head, url);
    try {
      const runtime = await this.options.runtime();
      const response = await runtime.fetch(this.workerRequest(req, url, undefined));
      const accept = (response as Partial<UpgradeResponse>)[UPGRADE];
      if (!accept) return rejectUpgrade(socket, response.status, await response.text());
      // ws answers the offer it is given with its parameters as they are: given workerd's
      // agreement as the only offer, it answers (and compresses) as workerd would.
      const agreed = agreeDeflate(req.headers['sec-websocket-extensions']);
      if (agreed) req.headers['sec-websocket-extensions'] = agreed;
      else delete req.headers['sec-websocket-extensions'];
      this.wss.handleUpgrade(req, socket, head, (ws: WebSocket) => {
        this.socketsPerClient.set(client, (this.socketsPerClient.get(client) ?? 0) + 1);
        ws.once('close', () => {
          const left = (this.socketsPerClient.get(client) ?? 1) - 1;
          if (left > 0) this.socketsPerClient.set(client, left);
          else this.socketsPerClient.delete(client);
        });
        const handlers = accept(plainSmallFrames(ws));
        const closed = handlers.answersClose ? answerCloseByWorker(ws, handlers) : (code: number, reason: string) => handlers.close(code, reason);
        ws.on('message', (data, isBinary) => handlers.message(isBinary ? new Uint8Array(data as Buffer) : (data as Buffer).toString('utf8')));
        ws.on('close', (code, reason) => closed(code, reason.toString('utf8')));
        // A protocol error (ws closes the socket after it): a hibernatable socket's webSocketError.
        ws.on('error', (error) => {
          this.options.logger.warn(`[receiver] websocket: ${error.message}`);
          handlers.error?.(error);
        });
      });
    } catch (error) {
      this.options.logger.error(`[receiver] upgrade ${req.url}: ${(error as Error)?.stack ?? String(error)}`);
      rejectUpgrade(socket, 500, 'Internal Server Error');
    }
  }

  /** Stops accepting, lets open requests finish, closes WebSockets. */
  async close(): Promise<void> {
    for (const client of this.wss.clients) client.close(1001, 'Server shutting down');
    this.options.admin?.close();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeIdleConnections();
    });
  }
}

/**
 * The failure behind an error, however user code wrapped it, that a retry will get past: a disk
 * that refused a write (retry in 30 s), an instance shut down for a reload (retry at once).
 */
function unavailable(error: unknown): { error: Error; after: number } | undefined {
  for (let e = error, depth = 0; e && depth < 5; e = (e as Error).cause, depth++) {
    if (e instanceof StorageWriteError) return { error: e, after: 30 };
    if (e instanceof InstanceClosedError) return { error: e, after: 1 };
  }
  return undefined;
}

/** The worker's headers as the client gets them; `set-cookie` goes separately, one line a cookie. */
function headersOf(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (name !== 'set-cookie') out[name] = value;
  });
  return out;
}

function isStreaming(response: Response): boolean {
  const type = response.headers.get('content-type') ?? '';
  return type.startsWith('text/event-stream') || type.startsWith('application/x-ndjson');
}

function rejectUpgrade(socket: Duplex, status: number, body: string): void {
  const text = Buffer.from(body, 'utf8');
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? ''}\r\ncontent-type: text/plain;charset=UTF-8\r\ncontent-length: ${text.length}\r\nconnection: close\r\n\r\n${body}`,
  );
}
