/**
 * A Durable Object namespace binding (`env.WEBHOOK_AGENT`): `idFromName`, `get`, `getByName`,
 * and stubs whose `fetch` and methods reach the instance, like DO RPC.
 */
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DurableObjectId } from './durableObject';
import { InstanceHost, type DurableObjectClass, type HostedClass } from './instanceHost';
import { ALARM_MARKER } from './instanceFolder';
import { encodeName } from '../storage/names';
import { readPrivate } from '../../core/privateFiles';
import type { Platform } from '../platform';
import type { Timers } from '../../core/timers';

export type Stub = { fetch(input: Request | string | URL, init?: RequestInit): Promise<Response> } & Record<string, (...args: unknown[]) => Promise<unknown>>;

/** A file in an unnamed instance's folder (made by `newUniqueId`): its key is the id itself. */
const UNNAMED_MARKER = 'unnamed';

export class DurableObjectNamespace {
  private readonly hosts = new Map<string, InstanceHost>();
  /** Ids made from names in this process, so `idFromString` of one finds its named instance. */
  private readonly namesByHex = new Map<string, string>();
  /** What each of its hosts is given, one object for them all. */
  private readonly hosted: HostedClass;

  constructor(
    platform: Platform,
    /** The binding name, as in the wrangler config (`WEBHOOK_AGENT`). */
    readonly binding: string,
    readonly className: string,
    cls: DurableObjectClass,
    env: () => unknown,
    /** The folder of this namespace's instances. */
    readonly directory: string,
  ) {
    this.hosted = { platform, binding, className, cls, env };
  }

  idFromName(name: string): DurableObjectId {
    if (typeof name !== 'string') name = String(name);
    const hex = createHash('sha256').update(`${this.binding}\0${name}`).digest('hex').slice(0, 64);
    this.namesByHex.set(hex, name);
    return new DurableObjectId(name, hex);
  }

  /** A fresh id no name maps to; its instance is kept under the id's hex form. */
  newUniqueId(_options?: { jurisdiction?: string }): DurableObjectId {
    return new DurableObjectId(undefined, randomBytes(32).toString('hex'));
  }

  /** The id `id.toString()` gave; the instance is the same one (by name when it was named). */
  idFromString(text: string): DurableObjectId {
    if (typeof text !== 'string' || !/^[0-9a-f]{64}$/.test(text)) throw new TypeError('Invalid Durable Object ID: must be 64 hex digits');
    const name = this.namesByHex.get(text) ?? this.nameOnDisk(text);
    return new DurableObjectId(name, text);
  }

  private nameOnDisk(hex: string): string | undefined {
    for (const name of this.instanceNames()) if (this.idFromName(name).toString() === hex) return name;
    return undefined;
  }

  get(id: DurableObjectId, _options?: { locationHint?: string }): Stub {
    if (!(id instanceof DurableObjectId))
      throw new TypeError("Failed to execute 'get' on 'DurableObjectNamespace': parameter 1 is not of type 'DurableObjectId'.");
    return makeStub(id.name === undefined ? this.unnamedHost(id) : this.host(id.name));
  }

  getByName(name: string, _options?: { locationHint?: string }): Stub {
    return makeStub(this.host(String(name)));
  }

  jurisdiction(_name: string): DurableObjectNamespace {
    return this;
  }

  /** The runtime's timers, which the SDK's routing waits on between retries (routing.ts). */
  get timers(): Timers {
    return this.hosted.platform.timers;
  }

  host(name: string): InstanceHost {
    let host = this.hosts.get(name);
    if (!host) {
      const dir = path.join(this.directory, encodeName(name));
      if (fs.existsSync(path.join(dir, UNNAMED_MARKER))) return this.unnamedHost(new DurableObjectId(undefined, name));
      host = new InstanceHost(name, this.idFromName(name), this.hosted, dir);
      this.hosts.set(name, host);
    }
    return host;
  }

  private unnamedHost(id: DurableObjectId): InstanceHost {
    const key = id.toString();
    let host = this.hosts.get(key);
    if (!host) {
      const dir = path.join(this.directory, encodeName(key));
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      if (!fs.existsSync(path.join(dir, UNNAMED_MARKER))) fs.writeFileSync(path.join(dir, UNNAMED_MARKER), '', { mode: 0o600 });
      host = new InstanceHost(key, id, this.hosted, dir);
      this.hosts.set(key, host);
    }
    return host;
  }

  /** Wakes every instance that has an alarm on disk, so alarms fire after a restart. */
  async resumeAlarms(): Promise<void> {
    if (!fs.existsSync(this.directory)) return;
    const woken: Promise<void>[] = [];
    for (const entry of fs.readdirSync(this.directory)) {
      const dir = path.join(this.directory, entry);
      if (!fs.existsSync(path.join(dir, ALARM_MARKER)) || !fs.existsSync(path.join(dir, 'name'))) continue;
      const name = readPrivate(path.join(dir, 'name')).toString('utf8');
      woken.push(
        this.host(name)
          .ensureStarted()
          .catch((error: unknown) => this.hosted.platform.logger.error(`${name}: waking for its alarm: ${(error as Error).message}`)),
      );
    }
    await Promise.all(woken);
  }

  /** Every instance with data on disk or awake now, by name. */
  instanceNames(): string[] {
    const names = new Set(this.hosts.keys());
    if (fs.existsSync(this.directory)) {
      for (const entry of fs.readdirSync(this.directory)) {
        const file = path.join(this.directory, entry, 'name');
        if (fs.existsSync(file)) names.add(readPrivate(file).toString('utf8'));
      }
    }
    return [...names].sort();
  }

  /** True when the instance is known here or has data on disk (without listing every instance). */
  has(name: string): boolean {
    return this.hosts.has(name) || fs.existsSync(path.join(this.directory, encodeName(name), 'name'));
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
    const dir = path.join(this.directory, encodeName(name));
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
