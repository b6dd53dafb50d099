// The agents-protocol RPC calls clients send to one receiver, counted on the wire: a WebSocket relay
// on loopback that clients connect to instead of the receiver, which opens the same path there with
// the same credentials, passes every frame both ways, and counts the frames the contract reads as
// calls (src/core/contract/agentsProtocol.ts). An upgrade the receiver refuses is refused with its
// status, so a client sees what it would see there.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import { parseClientFrame } from '../../../src/core/contract/agentsProtocol';

/** Headers of an upgrade that belong to its connection, not to whoever asked. */
const HOP_BY_HOP = new Set([
  'host',
  'connection',
  'upgrade',
  'sec-websocket-key',
  'sec-websocket-version',
  'sec-websocket-extensions',
  'sec-websocket-protocol',
]);

export class AgentCalls {
  private readonly methods: string[] = [];
  private readonly sockets = new Set<WebSocket>();

  private constructor(
    private readonly server: http.Server,
    /** The base URL to give clients in place of the receiver's (http://127.0.0.1:port). */
    readonly url: string,
  ) {}

  /** A relay to `target` (the receiver's http:// base URL) on port 0. */
  static async start(target: string): Promise<AgentCalls> {
    const server = http.createServer((_req, res) => res.writeHead(404).end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const relay = new AgentCalls(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    const upgrades = new WebSocketServer({ noServer: true });
    const base = target.replace(/^http/, 'ws').replace(/\/$/, '');
    server.on('upgrade', (request: http.IncomingMessage, socket, head) => {
      const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !HOP_BY_HOP.has(name))) as Record<string, string>;
      const upstream = new WebSocket(`${base}${request.url ?? '/'}`, { headers });
      upstream.once('unexpected-response', (_req, response) => {
        socket.end(`HTTP/1.1 ${response.statusCode ?? 502} ${response.statusMessage ?? ''}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
        response.resume();
      });
      upstream.once('error', () => socket.destroy());
      upstream.once('open', () => upgrades.handleUpgrade(request, socket, head, (client) => relay.join(client, upstream)));
    });
    return relay;
  }

  /** RPC calls sent so far. */
  get count(): number {
    return this.methods.length;
  }

  /** The methods called so far, oldest first. */
  called(): readonly string[] {
    return this.methods;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.terminate();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private join(client: WebSocket, upstream: WebSocket): void {
    this.sockets.add(client).add(upstream);
    client.on('message', (data, binary) => {
      const frame = binary ? undefined : parseClientFrame(data.toString());
      if (frame?.kind === 'rpc') this.methods.push(frame.call.method);
      upstream.send(data, { binary });
    });
    upstream.on('message', (data, binary) => client.send(data, { binary }));
    const close = (from: WebSocket, to: WebSocket) =>
      from.on('close', (code, reason) => {
        this.sockets.delete(from);
        if (to.readyState === WebSocket.OPEN) to.close(code === 1005 || code === 1006 ? 1000 : code, reason);
      });
    close(client, upstream);
    close(upstream, client);
  }
}
