/**
 * The WebSockets an instance holds open, which keep it awake: an Agent's connections (the
 * upgrade answered for the object, which speaks its own protocol on each through its hooks,
 * `hosted.ts`) and a socket a plain Durable Object `accept()`ed. Hibernatable WebSockets
 * (`ctx.acceptWebSocket`) are not here: they outlive the object (hibernation.ts). At shutdown every
 * open connection is closed with 1012 (Service Restart), so clients reconnect to the new host.
 */
import type { Logger } from '../../core/log';
import { LIFECYCLE_PROPS_HEADER, decodeLifecycleProps, takeLifecycleProps } from '../../core/contract/lifecycleProps';
import { hooksOf, type HostedConnection, type Socket } from './hosted';
import type { LiveInstance } from './liveInstance';
import type { WorkerWebSocket } from './webSocket';

/** Symbol on a Response that carries a WebSocket upgrade for the server to complete. */
export const UPGRADE = Symbol.for('hookbench.upgrade');

export type UpgradeResponse = Response & { [UPGRADE]: (socket: Socket) => SocketHandlers };

export interface SocketHandlers {
  message(data: string | Uint8Array): void;
  close(code: number, reason: string): void;
  /** A transport error (not a plain disconnect): reported instead of the close that follows. */
  error?(error: Error): void;
  /**
   * The peer's close frame is answered by the worker's own `ws.close()` (workerd's hibernatable
   * WebSockets), not echoed by the transport at once: the receiver reports the close when the
   * frame arrives and sends the worker's answer.
   */
  readonly answersClose?: boolean;
}

/** What the connections need of their instance's host. */
export interface ConnectionsHost {
  readonly name: string;
  readonly logger: Logger;
  /** Runs `fn` as an event on the woken instance (behind both gates). */
  run<T>(fn: (live: LiveInstance) => Promise<T>, props?: () => unknown): Promise<T>;
  /** A connection opened: the instance's idle spell ends. */
  busy(): void;
  /** A connection closed (its close handled): the instance may be idle now. */
  idle(): void;
}

export class InstanceConnections {
  private open = 0;
  /** The Agent's connections' transports, closed with 1012 at shutdown. */
  private readonly sockets = new Set<Socket>();

  constructor(private readonly host: ConnectionsHost) {}

  /** How many WebSockets the instance holds open now. */
  get count(): number {
    return this.open;
  }

  /** A WebSocket the object accepted with `accept()`: the instance stays awake while it is open. */
  holdOpen(server: WorkerWebSocket): void {
    this.open++;
    server.addEventListener('close', () => {
      this.open--;
      this.host.idle();
    });
  }

  /** The answer to an Agent's upgrade: the server completes it, then hands each frame here. */
  upgrade(request: Request): UpgradeResponse {
    const response = new Response(null, { status: 200 }) as UpgradeResponse;
    response[UPGRADE] = (socket) => this.connect(socket, request);
    return response;
  }

  private connect(socket: Socket, request: Request): SocketHandlers {
    this.open++;
    this.sockets.add(socket);
    this.host.busy();
    const header = request.headers.get(LIFECYCLE_PROPS_HEADER);
    const ready: Promise<HostedConnection> = this.host.run(
      async ({ object, gate }) => {
        const hooks = hooksOf(object);
        if (!hooks) throw new Error('WebSocket connections need an Agent');
        return hooks.connect(socket, header ? takeLifecycleProps(request).request : request, (send) => gate.send(send));
      },
      header ? () => decodeLifecycleProps(header) : undefined,
    );
    ready.catch((error: unknown) => {
      this.host.logger.error(`${this.host.name}: connect failed: ${(error as Error).message}`);
      socket.close(1011, 'Internal error');
    });
    return {
      // The SDK accepts its connections with ctx.acceptWebSocket: the agent's own close answers.
      answersClose: true,
      message: (data) => {
        void ready
          .then((connection) => this.host.run(() => connection.message(data)))
          .catch((error: unknown) => this.host.logger.error(`${this.host.name}: ${(error as Error).stack ?? String(error)}`));
      },
      close: (code, reason) => {
        this.open--;
        this.sockets.delete(socket);
        void ready
          .then((connection) => this.host.run(() => connection.close(code, reason, code !== 1006)))
          .catch(() => undefined)
          .finally(() => this.host.idle());
      },
    };
  }

  /** Closes every Agent connection with 1012 (Service Restart): the agents client reconnects, to the new build on a reload. */
  closeAll(): void {
    for (const socket of this.sockets) socket.close(1012, 'Service Restart');
    this.sockets.clear();
  }
}
