// The admin API requests this process sends to one receiver, seen as they leave for the wire:
// fetch (undici) publishes every request it makes on the `undici:request:create` diagnostics
// channel, so a test counts what a client asked without a field in the client. Each is named as
// the route table names it (`POST /__hookbench/instances/details`), or by its path when no route
// has it.
import * as diagnostics from 'node:diagnostics_channel';
import { ADMIN_PREFIX, adminRoutesAt } from '../../../src/core/contract/admin';
import { routeLabel } from '../../../src/core/contract/adminRoute';

const CHANNEL = 'undici:request:create';

interface UndiciRequest {
  readonly origin: string | URL;
  readonly method: string;
  readonly path: string;
}

export class AdminRequests {
  private readonly names: string[] = [];
  private readonly origin: string;
  private readonly listener = (message: unknown) => this.seen((message as { request: UndiciRequest }).request);

  /** Counts from now on the admin requests to `baseUrl`'s origin, until disposed. */
  constructor(baseUrl: string) {
    this.origin = new URL(baseUrl).origin;
    diagnostics.subscribe(CHANNEL, this.listener);
  }

  /** Requests sent so far. */
  get count(): number {
    return this.names.length;
  }

  /** The last `n` requests, oldest first, as `METHOD /pattern`. */
  recent(n: number): string[] {
    return n > 0 ? this.names.slice(-n) : [];
  }

  dispose(): void {
    diagnostics.unsubscribe(CHANNEL, this.listener);
  }

  private seen(request: UndiciRequest): void {
    if (new URL(String(request.origin)).origin !== this.origin) return;
    const pathname = request.path.split('?')[0]!;
    if (!pathname.startsWith(ADMIN_PREFIX)) return;
    const route = adminRoutesAt(pathname).find((match) => 'method' in match.route && match.route.method === request.method)?.route;
    this.names.push(route && 'method' in route ? routeLabel(route) : `${request.method} ${pathname}`);
  }
}
