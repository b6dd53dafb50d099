/**
 * A Durable Object namespace binding (`env.WEBHOOK_AGENT`): `idFromName`, `get`, `getByName`,
 * and stubs whose `fetch` and methods reach the instance, like DO RPC.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DurableObjectId } from './durableObject';
import { InstanceHost, type DurableObjectClass, type HostDeps } from './instanceHost';
import { encodeName } from './names';
import { readPrivate } from './privateFiles';

export type Stub = { fetch(input: Request | string | URL, init?: RequestInit): Promise<Response> } & Record<string, (...args: unknown[]) => Promise<unknown>>;

export interface NamespaceDeps extends Omit<HostDeps, 'dir'> {
  /** The folder of this namespace's instances. */
  readonly dir: string;
}

export class DurableObjectNamespace {
  private readonly hosts = new Map<string, InstanceHost>();

  constructor(
    /** The binding name, as in the wrangler config (`WEBHOOK_AGENT`). */
    readonly binding: string,
    readonly className: string,
    private readonly cls: DurableObjectClass,
    private readonly env: () => unknown,
    private readonly deps: NamespaceDeps,
  ) {}

  idFromName(name: string): DurableObjectId {
    const hex = createHash('sha256').update(`${this.binding}\0${name}`).digest('hex').slice(0, 64);
    return new DurableObjectId(name, hex);
  }

  get(id: DurableObjectId): Stub {
    return makeStub(this.host(id.name));
  }

  getByName(name: string): Stub {
    return makeStub(this.host(name));
  }

  host(name: string): InstanceHost {
    let host = this.hosts.get(name);
    if (!host) {
      const deps = { ...this.deps, dir: path.join(this.deps.dir, encodeName(name)) };
      host = new InstanceHost(name, this.idFromName(name), this.cls, this.env, deps);
      this.hosts.set(name, host);
    }
    return host;
  }

  /** The folder holding this namespace's instances. */
  get directory(): string {
    return this.deps.dir;
  }

  /** Every instance with data on disk or awake now, by name. */
  instanceNames(): string[] {
    const names = new Set(this.hosts.keys());
    if (fs.existsSync(this.deps.dir)) {
      for (const entry of fs.readdirSync(this.deps.dir)) {
        const file = path.join(this.deps.dir, entry, 'name');
        if (fs.existsSync(file)) names.add(readPrivate(file).toString('utf8'));
      }
    }
    return [...names].sort();
  }

  /** True when the instance is known here or has data on disk (without listing every instance). */
  has(name: string): boolean {
    return this.hosts.has(name) || fs.existsSync(path.join(this.deps.dir, encodeName(name), 'name'));
  }

  existingHost(name: string): InstanceHost | undefined {
    return this.hosts.get(name);
  }

  /**
   * Closes the instance and deletes its data. Until the folder is gone, requests find the instance
   * shut down (InstanceClosedError, a 503 to retry) rather than opening what is being deleted.
   */
  async destroy(name: string): Promise<boolean> {
    const existed = this.hosts.has(name);
    const host = this.host(name);
    const dir = path.join(this.deps.dir, encodeName(name));
    try {
      await host.shutdown();
      if (!fs.existsSync(dir)) return existed;
      await fs.promises.rm(dir, { recursive: true, force: true });
      return true;
    } finally {
      if (this.hosts.get(name) === host) this.hosts.delete(name);
    }
  }

  async shutdown(): Promise<void> {
    await Promise.all([...this.hosts.values()].map((host) => host.shutdown()));
  }
}

const NOT_RPC = new Set(['then', 'catch', 'finally', 'toJSON', 'constructor']);

function makeStub(host: InstanceHost): Stub {
  const target = {
    fetch(input: Request | string | URL, init?: RequestInit): Promise<Response> {
      return host.fetch(input instanceof Request && init === undefined ? input : new Request(input, init));
    },
  };
  return new Proxy(target, {
    get(t, property) {
      if (property === 'fetch') return t.fetch;
      // A stub is not a thenable: awaiting it must give the stub, not call a remote "then".
      if (typeof property === 'symbol' || NOT_RPC.has(property)) return undefined;
      if (property === 'id') return host.id;
      if (property === 'name') return host.name;
      return (...args: unknown[]) => host.rpc(property, args);
    },
  }) as unknown as Stub;
}
