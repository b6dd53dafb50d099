/**
 * Globals a worker's code sees as workerd shows them, where Node's differ: `navigator` (whose
 * `userAgent` is `Cloudflare-Workers`) and `process`, whose `env` holds the worker's vars and
 * secrets instead of the serve process's environment. workerd fills `process.env` under
 * `nodejs_compat` when `nodejs_compat_populate_process_env` is on: implied from the compatibility
 * date 2025-04-01, or set as a flag, and turned off by `nodejs_compat_do_not_populate_process_env`.
 * Strings are kept, values JSON can carry are JSON text, anything else is left out, as workerd's
 * `internal_process.ts` does; a value set later is turned into a string.
 */
import type { Compatibility } from '../../core/workerConfig/compatibility';

/** From this compatibility date, `nodejs_compat` implies `nodejs_compat_populate_process_env`. */
export const POPULATE_PROCESS_ENV_DATE = '2025-04-01';

/** Whether workerd fills `process.env` from the bindings for this date and these flags. */
export function populatesProcessEnv({ date, flags }: Compatibility): boolean {
  if (!flags.includes('nodejs_compat') && !flags.includes('nodejs_compat_v2')) return false;
  if (flags.includes('nodejs_compat_do_not_populate_process_env')) return false;
  // No date: the newest behaviour, as for every date rule (compatibility.ts).
  return flags.includes('nodejs_compat_populate_process_env') || date === undefined || date >= POPULATE_PROCESS_ENV_DATE;
}

/** True for what workerd's `isJsonSerializable` accepts: plain data of JSON's kinds. */
function plainData(value: unknown, seen = new Set<unknown>()): boolean {
  if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) return true;
  if (typeof value !== 'object' || seen.has(value)) return false;
  seen.add(value);
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto === Array.prototype) return (value as unknown[]).every((item) => plainData(item, seen));
  if (proto === Object.prototype) return Object.values(value as object).every((item) => plainData(item, seen));
  return false;
}

/**
 * The initial `process.env` from the text bindings (vars that are strings, then secrets), then
 * the JSON vars as text, in the order wrangler dev's worker sees them.
 */
export function processEnvOf(vars: Readonly<Record<string, unknown>>, secrets: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(vars)) if (typeof value === 'string' && !(key in secrets)) out[key] = value;
  Object.assign(out, secrets);
  for (const [key, value] of Object.entries(vars)) {
    if (typeof value !== 'string' && !(key in secrets) && plainData(value)) out[key] = JSON.stringify(value);
  }
  return out;
}

/** A `process.env` whose values are strings, as Node's and workerd's are. */
function stringEnv(initial: Record<string, string>): Record<string, string> {
  return new Proxy(initial, {
    set(target, key, value) {
      if (typeof key === 'symbol' || typeof value === 'symbol') throw new TypeError('Cannot convert a symbol value to a string');
      return Reflect.set(target, key, `${value as string}`);
    },
  });
}

/** Node's `process` with the worker's own `env` in place of the serve process's environment. */
export function workerProcess(env: Record<string, string>): NodeJS.Process {
  const own = stringEnv(env);
  return new Proxy(process, {
    get: (target, key) => (key === 'env' ? own : Reflect.get(target, key, target)),
  });
}

/** workerd's `navigator`. */
class Navigator {
  get userAgent(): string {
    return 'Cloudflare-Workers';
  }

  get hardwareConcurrency(): number {
    return 1;
  }
}

export const WORKER_NAVIGATOR = new Navigator();
