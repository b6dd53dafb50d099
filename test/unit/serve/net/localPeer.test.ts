// Naming the user at the other end of a loopback connection from the kernel's socket tables, as
// /proc/net/tcp and tcp6 print them; and, on this machine, the real tables for a real connection.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import * as net from 'node:net';
import { isLoopbackAddress, loopbackPeerUid, PeerIdentifier, procEndpoints, uidInTable } from '../../../../src/serve/net/localPeer';

// Two connections to port 8787 (0x2253) from ports 40000 (0x9C40, uid 1000) and 40002 (0x9C42, uid 65534), and the server's ends (uid 1000).
const TCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:2253 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 11 1 0 100 0 0 10 0
   1: 0100007F:9C40 0100007F:2253 01 00000000:00000000 00:00000000 00000000  1000        0 12 1 0 20 4 30 10 -1
   2: 0100007F:2253 0100007F:9C40 01 00000000:00000000 00:00000000 00000000  1000        0 13 1 0 20 4 30 10 -1
   3: 0100007F:9C42 0100007F:2253 01 00000000:00000000 00:00000000 00000000 65534        0 14 1 0 20 4 30 10 -1
   4: 0100007F:2253 0100007F:9C42 01 00000000:00000000 00:00000000 00000000  1000        0 15 1 0 20 4 30 10 -1
`;

/** Runs `use` on the server's end of a real loopback connection, then closes both ends. */
async function withLoopbackConnection(use: (socket: net.Socket) => Promise<void>): Promise<void> {
  const server = net.createServer();
  const accepted = new Promise<net.Socket>((resolve) => server.once('connection', resolve));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
  try {
    await use(await accepted);
  } finally {
    client.destroy();
    server.close();
  }
}

describe('local peer', () => {
  it('spells endpoints as the kernel prints them, in host byte order', () => {
    assert.deepEqual(procEndpoints('127.0.0.1', 8787, true), [
      { file: 'tcp', text: '0100007F:2253' },
      { file: 'tcp6', text: '0000000000000000FFFF00000100007F:2253' },
    ]);
    assert.deepEqual(procEndpoints('127.0.0.1', 8787, false)[0], { file: 'tcp', text: '7F000001:2253' });
    assert.deepEqual(procEndpoints('::1', 80, true), [{ file: 'tcp6', text: '00000000000000000000000001000000:0050' }]);
    assert.deepEqual(procEndpoints('10.0.0.5', 80, true), []);
  });

  it('finds the client’s line of a connection, not the server’s, and each client apart', () => {
    assert.equal(uidInTable(TCP, '0100007F:9C40', '0100007F:2253'), 1000);
    assert.equal(uidInTable(TCP, '0100007F:9C42', '0100007F:2253'), 65534);
    assert.equal(uidInTable(TCP, '0100007F:9C44', '0100007F:2253'), undefined);
  });

  it('names no one when two lines of one connection disagree', () => {
    const planted = TCP + '   5: 0100007F:9C42 0100007F:2253 01 00000000:00000000 00:00000000 00000000  1000        0 16 1 0 20 4 30 10 -1\n';
    assert.equal(uidInTable(planted, '0100007F:9C42', '0100007F:2253'), undefined);
  });

  it('tells loopback addresses from the rest', () => {
    for (const address of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1']) assert.ok(isLoopbackAddress(address), address);
    for (const address of ['10.0.0.1', '::ffff:10.0.0.1', 'fe80::1', undefined]) assert.ok(!isLoopbackAddress(address), String(address));
  });

  it('reads this user as the owner of a real loopback connection', { skip: process.platform !== 'linux' && 'reads /proc/net/tcp' }, () =>
    withLoopbackConnection(async (socket) => {
      assert.equal(await loopbackPeerUid(socket), process.getuid!());
      assert.deepEqual(await new PeerIdentifier().identify(socket), { kind: 'owner' });
      assert.deepEqual(await new PeerIdentifier({ uid: process.getuid!() + 1 }).identify(socket), { kind: 'other-user', uid: process.getuid!() });
    }),
  );

  it('reads a table once for the connections of one turn, and again for a later one', async () => {
    const reads: string[] = [];
    let table = '';
    const identifier = new PeerIdentifier({ uid: 1000, read: async (file) => (reads.push(file), table) });
    // Four connections accepted in one turn: 127.0.0.1:40001…40004 → 127.0.0.1:8787, each client's line owned by uid 1000.
    const line = (port: number) =>
      `   0: ${procEndpoints('127.0.0.1', port)[0]!.text} ${procEndpoints('127.0.0.1', 8787)[0]!.text} 01 00000000:00000000 00:00000000 00000000  1000        0 1 1\n`;
    const socket = (port: number) => ({ remoteAddress: '127.0.0.1', remotePort: port, localAddress: '127.0.0.1', localPort: 8787 }) as never;
    table = [40001, 40002, 40003, 40004].map(line).join('');
    const peers = await Promise.all([40001, 40002, 40003, 40004].map((port) => identifier.identify(socket(port))));
    assert.deepEqual(peers, Array(4).fill({ kind: 'owner' }));
    assert.deepEqual(reads, ['tcp'], 'one read for the burst');
    // A connection of a later turn is not in the table read before it: its own read finds it.
    table += line(40005);
    assert.deepEqual(await identifier.identify(socket(40005)), { kind: 'owner' });
    assert.deepEqual(reads, ['tcp', 'tcp']);
  });

  it(
    'names a new connection’s peer without waiting for libuv’s thread pool, which a busy process has full',
    { skip: process.platform !== 'linux' && 'reads /proc/net/tcp' },
    () =>
      withLoopbackConnection(async (socket) => {
        // Every thread of the pool (4 unless UV_THREADPOOL_SIZE says more) busy for a while.
        const threads = Number(process.env['UV_THREADPOOL_SIZE'] ?? 4);
        let busy = threads;
        const pool = Array.from(
          { length: threads },
          () => new Promise<void>((resolve) => crypto.pbkdf2('x', 'salt', 400_000, 32, 'sha256', () => resolve(void busy--))),
        );
        assert.deepEqual(await new PeerIdentifier().identify(socket), { kind: 'owner' });
        assert.equal(busy, threads, 'the peer was named only after the thread pool was free');
        await Promise.all(pool);
      }),
  );
});
