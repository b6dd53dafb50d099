/**
 * The serve process's HTTP and WebSocket front: every request goes to the worker's `fetch`; an
 * upgrade the worker accepts becomes an agents-protocol WebSocket. A failure in user code answers
 * 500 with the error's stack, as `wrangler dev` does, and never takes the process down.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Logger } from '../core/log';
import { UPGRADE, type UpgradeResponse } from '../core/runtime/instanceHost';
import type { WorkerRuntime } from '../core/runtime/workerRuntime';
import { BodyTooLargeError, readBody, requestUrl, toRequest, writeResponse, writeText } from './httpAdapter';

export interface ReceiverOptions {
  readonly host: string;
  readonly port: number;
  readonly runtime: () => Promise<WorkerRuntime>;
  readonly logger: Logger;
  readonly bodyLimit?: number;
}

export class Receiver {
  private readonly server: http.Server;
  private readonly wss = new WebSocketServer({ noServer: true, perMessageDeflate: true });
  private origin = '';

  constructor(private readonly options: ReceiverOptions) {
    this.server = http.createServer({ headersTimeout: 30_000, requestTimeout: 120_000, keepAliveTimeout: 5_000 }, (req, res) => void this.handle(req, res));
    this.server.on('upgrade', (req, socket, head) => void this.upgrade(req, socket, head));
    this.server.on('clientError', (_error, socket) => socket.destroy());
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

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let body: Buffer;
    try {
      body = await readBody(req, this.options.bodyLimit ?? 25 * 1024 * 1024);
    } catch (error) {
      if (error instanceof BodyTooLargeError) {
        res.setHeader('connection', 'close');
        return writeText(res, 413, 'Payload Too Large');
      }
      return writeText(res, 400, 'Bad Request');
    }
    try {
      const runtime = await this.options.runtime();
      const response = await runtime.fetch(toRequest(req, requestUrl(req, this.origin), body));
      await writeResponse(res, response);
    } catch (error) {
      this.options.logger.error(`[receiver] ${req.method} ${req.url}: ${(error as Error)?.stack ?? String(error)}`);
      writeText(res, 500, (error as Error)?.stack ?? String(error));
    }
  }

  private async upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    socket.on('error', () => socket.destroy());
    try {
      const runtime = await this.options.runtime();
      const response = await runtime.fetch(toRequest(req, requestUrl(req, this.origin), undefined));
      const accept = (response as Partial<UpgradeResponse>)[UPGRADE];
      if (!accept) return rejectUpgrade(socket, response.status, await response.text());
      this.wss.handleUpgrade(req, socket, head, (ws: WebSocket) => {
        const handlers = accept(ws);
        ws.on('message', (data, isBinary) => handlers.message(isBinary ? new Uint8Array(data as Buffer) : (data as Buffer).toString('utf8')));
        ws.on('close', (code, reason) => handlers.close(code, reason.toString('utf8')));
        ws.on('error', (error) => this.options.logger.warn(`[receiver] websocket: ${error.message}`));
      });
    } catch (error) {
      this.options.logger.error(`[receiver] upgrade ${req.url}: ${(error as Error)?.stack ?? String(error)}`);
      rejectUpgrade(socket, 500, 'Internal Server Error');
    }
  }

  /** Stops accepting, lets open requests finish, closes WebSockets. */
  async close(): Promise<void> {
    for (const client of this.wss.clients) client.close(1001, 'Server shutting down');
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeIdleConnections();
    });
  }
}

function rejectUpgrade(socket: Duplex, status: number, body: string): void {
  const text = Buffer.from(body, 'utf8');
  socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? ''}\r\ncontent-type: text/plain;charset=UTF-8\r\ncontent-length: ${text.length}\r\nconnection: close\r\n\r\n${body}`);
}
