/**
 * Keeps rendered pages away from the addresses src/core/browserRendering/pageAddresses.ts names, on the
 * three ways a page reaches the network (docs/security.md, The browser):
 * - the URL to render: refused with a 400 before any page opens, its host name resolved;
 * - requests Chromium sends itself (loopback and link-local IP literals and `localhost`, which it
 *   never sends through a proxy): judged on the literal address by request interception;
 * - every other connection (http, https, WebSockets) goes through this SOCKS5 proxy
 *   (`--proxy-server=socks5://…`, with which Chromium leaves name resolution to the proxy): it
 *   resolves the name, checks every address the name resolves to, and connects to the address it
 *   checked. Checking a name and then letting Chromium resolve it again would let through a name
 *   that answers a public address first and 169.254.169.254 next (DNS rebinding); the proxy leaves
 *   no second lookup. It sees a host and a port, not a path: on a name that resolves to this
 *   machine, the receiver's port is refused whole.
 * The proxy listens on loopback and serves only this user's processes (Chromium): it connects as
 * the serve process, so another user of the machine must not borrow it to reach what answers
 * only its owner (docs/security.md, Another user of the machine); on Linux its peers are named
 * as the receiver's are, elsewhere nobody can be (localPeer.ts).
 * Each refusal is logged as a `[security]` line naming the page's request and why. Chromium
 * reports any failed proxy connection as ERR_SOCKS_CONNECTION_FAILED; `explain` gives it back
 * the error it would have met itself (a name that does not resolve, a refused connection), so a
 * render fails with the code Browser Rendering gives (docs/render.md, Errors).
 */
import * as dns from 'node:dns/promises';
import * as net from 'node:net';
import type { Logger } from '../../core/log';
import { addressRefusal, literalAddress, urlPort, type OwnServices } from '../../core/browserRendering/pageAddresses';
import { PeerIdentifier } from '../net/localPeer';

export interface PageGuardOptions {
  readonly logger: Logger;
  /** The ports pages may not reach on this machine (known once the servers listen). */
  readonly own: () => OwnServices;
  /** Every address a name resolves to (default: the system's resolver). */
  readonly lookup?: (hostname: string) => Promise<string[]>;
  /** Who connects to the proxy (default: read from /proc on Linux). */
  readonly peers?: PeerIdentifier;
}

const systemLookup = async (hostname: string): Promise<string[]> => (await dns.lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

/** SOCKS5 replies (RFC 1928 §6). */
const REPLY = { succeeded: 0, failure: 1, notAllowed: 2, hostUnreachable: 4, refused: 5, commandNotSupported: 7, addressNotSupported: 8 } as const;

/** Chromium's names for the connection errors it would have met itself. */
const CONNECT_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'ERR_CONNECTION_REFUSED',
  ECONNRESET: 'ERR_CONNECTION_RESET',
  ETIMEDOUT: 'ERR_CONNECTION_TIMED_OUT',
  EHOSTUNREACH: 'ERR_ADDRESS_UNREACHABLE',
  ENETUNREACH: 'ERR_ADDRESS_UNREACHABLE',
};

/** What the address check made of a host: the address to connect to, or why not. */
type Resolution = { readonly address: string } | { readonly refusal: string; readonly unresolved?: true };

/** Reads a socket's first bytes exactly as asked; the socket is paused when the reader is let go. */
function byteReader(socket: net.Socket): { read(count: number): Promise<Buffer>; release(): Buffer } {
  let buffered = Buffer.alloc(0);
  let ended = false;
  let wake: (() => void) | undefined;
  const onData = (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    wake?.();
  };
  const onEnd = () => {
    ended = true;
    wake?.();
  };
  socket.on('data', onData).on('end', onEnd).on('close', onEnd);
  return {
    async read(count) {
      while (buffered.length < count) {
        // A SOCKS handshake is a few dozen bytes: anything longer is not one.
        if (ended || buffered.length > 1024) throw new Error('the handshake ended early');
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
      const out = buffered.subarray(0, count);
      buffered = buffered.subarray(count);
      return out;
    },
    release() {
      socket.pause();
      socket.off('data', onData).off('end', onEnd).off('close', onEnd);
      return buffered;
    },
  };
}

export class PageGuard {
  readonly #options: PageGuardOptions;
  readonly #proxy: net.Server;
  readonly #sockets = new Set<net.Socket>();
  readonly #peers: PeerIdentifier;
  /** Why recent proxy connections failed, by `host:port`, as Chromium names network errors. */
  readonly #failures = new Map<string, { error: string; reason?: string }>();
  #url: string | undefined;

  constructor(options: PageGuardOptions) {
    this.#options = options;
    this.#peers = options.peers ?? new PeerIdentifier();
    this.#proxy = net.createServer((socket) => {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
      void this.#serve(socket);
    });
  }

  /** The proxy for Chromium's `--proxy-server`, once it listens. */
  get proxyUrl(): string | undefined {
    return this.#url;
  }

  /** Starts the proxy on loopback, on a free port. */
  async listen(): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.#proxy.once('error', reject);
      this.#proxy.listen(0, '127.0.0.1', () => resolve());
    });
    this.#url = `socks5://127.0.0.1:${(this.#proxy.address() as net.AddressInfo).port}`;
    return this.#url;
  }

  async close(): Promise<void> {
    if (!this.#url) return;
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#proxy.close(() => resolve()));
  }

  /** Why a page may not load `url`, from its literal host alone; undefined when it may (or a name decides). */
  literal(url: string): string | undefined {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return undefined;
    }
    const address = literalAddress(parsed.hostname);
    const why = address === undefined ? undefined : addressRefusal(address, urlPort(parsed), parsed.pathname, this.#options.own());
    return why && `${parsed.hostname} is ${why}`;
  }

  /**
   * Why the URL to render may not be loaded, its host name resolved; undefined when it may, or
   * when the name does not resolve (the navigation then fails as Chromium reports it).
   */
  async resolved(url: string): Promise<string | undefined> {
    const parsed = new URL(url);
    const resolution = await this.#resolve(parsed.hostname, urlPort(parsed), parsed.pathname);
    return 'refusal' in resolution && !resolution.unresolved ? resolution.refusal : undefined;
  }

  /**
   * `error` with a failed proxy connection named as Chromium would name it without the proxy
   * (`net::ERR_NAME_NOT_RESOLVED at …`), and a refusal's reason; any other error as it is.
   */
  explain(error: unknown): unknown {
    const message = error instanceof Error ? error.message : '';
    const failed = /net::ERR_SOCKS_CONNECTION_FAILED at (\S+)/.exec(message);
    if (!failed) return error;
    let url: URL;
    try {
      url = new URL(failed[1]!);
    } catch {
      return error;
    }
    const known = this.#failures.get(`${url.hostname.replace(/^\[(.*)\]$/, '$1')}:${urlPort(url)}`);
    if (!known) return error;
    return new Error(message.replace('ERR_SOCKS_CONNECTION_FAILED', known.error) + (known.reason ? ` (${known.reason})` : ''));
  }

  #failed(host: string, port: number, error: string, reason?: string): void {
    this.#failures.delete(`${host}:${port}`);
    this.#failures.set(`${host}:${port}`, { error, ...(reason ? { reason } : {}) });
    // The newest hundred: enough for the renders running now.
    if (this.#failures.size > 100) this.#failures.delete(this.#failures.keys().next().value!);
  }

  /** Logs a refused request of a page. */
  refused(what: string, reason: string): void {
    this.#options.logger.warn(`[security] the render emulator refused a page's request to ${what}: ${reason}`);
  }

  /** Every address the name resolves to must be allowed; the first is the one connected to. */
  async #resolve(hostname: string, port: number, path: string | undefined): Promise<Resolution> {
    const literal = literalAddress(hostname);
    let addresses: string[];
    try {
      addresses = literal !== undefined ? [literal] : await (this.#options.lookup ?? systemLookup)(hostname);
    } catch (error) {
      return { refusal: `${hostname} does not resolve (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, unresolved: true };
    }
    for (const address of addresses) {
      const why = addressRefusal(address, port, path, this.#options.own());
      if (why) return { refusal: literal !== undefined ? `${hostname} is ${why}` : `${hostname} resolves to ${address}: ${why}` };
    }
    return addresses[0] === undefined ? { refusal: `${hostname} resolves to no address`, unresolved: true } : { address: addresses[0] };
  }

  /** One SOCKS5 connection: no authentication, CONNECT only (RFC 1928). */
  async #serve(socket: net.Socket): Promise<void> {
    socket.on('error', () => socket.destroy());
    const reader = byteReader(socket);
    const peer = await this.#peers.identify(socket);
    if (peer.kind !== 'owner' && peer.kind !== 'unverified') {
      this.#options.logger.warn(
        `[security] the render emulator's proxy refused a connection from ${peer.kind === 'other-user' ? `another user (uid ${peer.uid})` : 'a client it cannot name'}`,
      );
      return void socket.destroy();
    }
    const reply = (code: number) => Buffer.from([5, code, 0, 1, 0, 0, 0, 0, 0, 0]);
    let host: string;
    let port: number;
    try {
      const [version, methods] = await reader.read(2);
      const offered = await reader.read(methods!);
      if (version !== 5 || !offered.includes(0)) return void socket.end(Buffer.from([5, 0xff]));
      socket.write(Buffer.from([5, 0]));
      const [, command, , type] = await reader.read(4);
      if (type === 1) host = [...(await reader.read(4))].join('.');
      // Written out in full, then in the URL parser's canonical form (`fe80::1`), as interfaces list it.
      else if (type === 4) host = new URL(`http://[${((await reader.read(16)).toString('hex').match(/.{4}/g) ?? []).join(':')}]`).hostname.slice(1, -1);
      else if (type === 3) host = (await reader.read((await reader.read(1))[0]!)).toString('latin1');
      else return void socket.end(reply(REPLY.addressNotSupported));
      port = (await reader.read(2)).readUInt16BE(0);
      if (command !== 1) return void socket.end(reply(REPLY.commandNotSupported));
    } catch {
      return void socket.destroy();
    }
    const resolution = await this.#resolve(host, port, undefined);
    if ('refusal' in resolution) {
      if (resolution.unresolved) this.#failed(host, port, 'ERR_NAME_NOT_RESOLVED');
      else {
        this.refused(`${host.includes(':') ? `[${host}]` : host}:${port}`, resolution.refusal);
        this.#failed(host, port, 'ERR_BLOCKED_BY_CLIENT', resolution.refusal);
      }
      return void socket.end(reply(resolution.unresolved ? REPLY.hostUnreachable : REPLY.notAllowed));
    }
    const upstream = net.connect({ host: resolution.address, port });
    let connected = false;
    upstream.once('connect', () => {
      connected = true;
      socket.write(reply(REPLY.succeeded));
      const early = reader.release();
      if (early.length > 0) upstream.write(early);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      if (connected) return void socket.destroy();
      this.#failed(host, port, CONNECT_ERRORS[error.code ?? ''] ?? 'ERR_CONNECTION_FAILED');
      socket.end(
        reply(
          error.code === 'ECONNREFUSED' ? REPLY.refused : error.code === 'EHOSTUNREACH' || error.code === 'ENETUNREACH' ? REPLY.hostUnreachable : REPLY.failure,
        ),
      );
    });
    socket.on('close', () => upstream.destroy());
    upstream.on('close', () => socket.destroy());
  }
}
