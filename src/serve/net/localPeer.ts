/**
 * Who is on the other end of a connection: this machine's owner of the serve process, another
 * local user, a remote address, or a loopback client the platform cannot name. Another user of the
 * same machine can connect to loopback ports; the origin and host check cannot tell them from the
 * owner, so the non-webhook routes ask this as well (docs/security.md, "Another user of the machine").
 *
 * On Linux the kernel lists every TCP socket with its owner's uid in /proc/net/tcp and tcp6 (what
 * identd reads): the client's end of a loopback connection is the line whose local address is our
 * remote address and whose remote address is our local address. It is read once per connection.
 * Elsewhere a loopback client is `unverified`: what a user there should do is in docs/security.md.
 */
import { readFileSync } from 'node:fs';
import * as os from 'node:os';
import type { Socket } from 'node:net';

export type Peer =
  | { readonly kind: 'owner' }
  | { readonly kind: 'other-user'; readonly uid: number }
  | { readonly kind: 'remote'; readonly address: string }
  /** Loopback, on a platform that cannot name a connection's owner (macOS, Windows). */
  | { readonly kind: 'unverified' }
  /** Loopback on Linux, but no line of /proc names the client's end: refused, as a stranger is. */
  | { readonly kind: 'unknown' };

/** The uid the process runs as; undefined where there is none (Windows). */
const ownUid = (): number | undefined => process.getuid?.();

/** The 4 bytes of a loopback IPv4 address as text (`127.0.0.1`, `::ffff:127.0.0.1`), else undefined. */
function loopbackV4(address: string): number[] | undefined {
  const match = /^(?:::ffff:)?(127)\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/i.exec(address);
  return match ? match.slice(1).map(Number) : undefined;
}

/** Whether an address a socket reports is this machine's loopback. */
export function isLoopbackAddress(address: string | undefined): boolean {
  return address !== undefined && (address === '::1' || loopbackV4(address) !== undefined);
}

const hex8 = (bytes: readonly number[], littleEndian: boolean): string =>
  (littleEndian ? [...bytes].reverse() : bytes)
    .map((b) => b.toString(16).padStart(2, '0'))
    .join('')
    .toUpperCase();

/**
 * How /proc/net/tcp{,6} prints an endpoint (`0100007F:1F90`): each 32-bit word of the address as
 * the kernel holds it, in host byte order, then the port. An IPv4 peer may be an IPv4 socket (tcp)
 * or a dual-stack IPv6 socket holding a v4-mapped address (tcp6): both spellings are returned.
 */
export function procEndpoints(address: string, port: number, littleEndian = os.endianness() === 'LE'): { file: 'tcp' | 'tcp6'; text: string }[] {
  const portHex = port.toString(16).padStart(4, '0').toUpperCase();
  const v4 = loopbackV4(address);
  if (v4) {
    const mapped = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];
    return [
      { file: 'tcp', text: `${hex8(v4, littleEndian)}:${portHex}` },
      {
        file: 'tcp6',
        text: `${hex8(mapped.slice(0, 4), littleEndian)}${hex8(mapped.slice(4, 8), littleEndian)}${hex8(mapped.slice(8, 12), littleEndian)}${hex8(v4, littleEndian)}:${portHex}`,
      },
    ];
  }
  if (address === '::1') return [{ file: 'tcp6', text: `${'0'.repeat(24)}${hex8([0, 0, 0, 1], littleEndian)}:${portHex}` }];
  return [];
}

/**
 * The uid on the line of `table` (a /proc/net/tcp or tcp6 listing) whose local endpoint is
 * `local` and remote endpoint is `remote`; undefined when there is none, or when two lines disagree.
 */
export function uidInTable(table: string, local: string, remote: string): number | undefined {
  let uid: number | undefined;
  for (let at = table.indexOf(` ${local} ${remote} `); at >= 0; at = table.indexOf(` ${local} ${remote} `, at + 1)) {
    const end = table.indexOf('\n', at);
    // sl local rem st tx:rx tr:when retrnsmt uid timeout inode …
    const fields = table
      .slice(at, end < 0 ? undefined : end)
      .trim()
      .split(/\s+/);
    const found = Number(fields[6]);
    if (!Number.isInteger(found)) return undefined;
    if (uid !== undefined && uid !== found) return undefined;
    uid = found;
  }
  return uid;
}

/** Reads a /proc table; undefined where there is none. */
export type ReadTable = (file: 'tcp' | 'tcp6') => Promise<string | undefined>;

/**
 * Read at once rather than through libuv's thread pool: the pool's four round trips (open, stat,
 * read, close) waited far longer than the kernel takes to print the table on a busy machine, before
 * every request of a new connection (docs/performance.md, "The connection").
 */
const readProcTable: ReadTable = async (file) => {
  try {
    return readFileSync(`/proc/net/${file}`, 'latin1');
  } catch {
    return undefined;
  }
};

/**
 * One read of a table for every lookup that asks for it in the same turn of the event loop: the
 * kernel prints /proc/net/tcp by walking its whole connection table, whatever the number of
 * connections (docs/performance.md, "The connection"), and a burst of new connections (a load's 32
 * at once) asked for 32 reads. The read runs once the turn's connections have all been accepted,
 * so each of them is in the table it reads.
 */
export function sharedReads(read: ReadTable): ReadTable {
  const pending = new Map<'tcp' | 'tcp6', Promise<string | undefined>>();
  return (file) => {
    let shared = pending.get(file);
    if (!shared) {
      shared = new Promise<string | undefined>((resolve) =>
        setImmediate(() => {
          pending.delete(file);
          resolve(read(file));
        }),
      );
      pending.set(file, shared);
    }
    return shared;
  };
}

/** The local user who owns the client's end of a loopback connection, from the /proc tables. */
export async function loopbackPeerUid(
  socket: Pick<Socket, 'remoteAddress' | 'remotePort' | 'localAddress' | 'localPort'>,
  read: ReadTable = readProcTable,
): Promise<number | undefined> {
  const { remoteAddress, remotePort, localAddress, localPort } = socket;
  if (!remoteAddress || !localAddress || remotePort === undefined || localPort === undefined) return undefined;
  // The client's line: its local end is our remote end.
  const clientEnds = procEndpoints(remoteAddress, remotePort);
  const serverEnds = procEndpoints(localAddress, localPort);
  const tables = new Map<'tcp' | 'tcp6', Promise<string | undefined>>();
  for (const client of clientEnds) {
    for (const server of serverEnds) {
      if (client.file !== server.file) continue;
      if (!tables.has(client.file)) tables.set(client.file, read(client.file));
      const table = await tables.get(client.file);
      const uid = table === undefined ? undefined : uidInTable(table, client.text, server.text);
      if (uid !== undefined) return uid;
    }
  }
  return undefined;
}

/** Names the peer of each connection once, and remembers it for the connection's life. */
export class PeerIdentifier {
  private readonly known = new WeakMap<Socket, Promise<Peer>>();

  private readonly read: ReadTable;
  private readonly uid: number | undefined;

  /** `uid: null` plays a platform that cannot name a connection's user (macOS, Windows). */
  constructor(options: { read?: ReadTable; uid?: number | null } = {}) {
    this.read = sharedReads(options.read ?? readProcTable);
    this.uid = options.uid === null ? undefined : (options.uid ?? ownUid());
  }

  identify(socket: Socket): Promise<Peer> {
    let peer = this.known.get(socket);
    if (!peer) {
      peer = this.lookUp(socket);
      this.known.set(socket, peer);
    }
    return peer;
  }

  private async lookUp(socket: Socket): Promise<Peer> {
    const address = socket.remoteAddress ?? '';
    if (!isLoopbackAddress(address)) return { kind: 'remote', address: address.replace(/^::ffff:/i, '') };
    if (this.uid === undefined || process.platform !== 'linux') return { kind: 'unverified' };
    const uid = await loopbackPeerUid(socket, this.read);
    if (uid === undefined) return { kind: 'unknown' };
    return uid === this.uid ? { kind: 'owner' } : { kind: 'other-user', uid };
  }
}
