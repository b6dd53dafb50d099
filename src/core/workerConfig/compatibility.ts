/**
 * The worker's `compatibility_date` and `compatibility_flags`, and the few behaviours Hookbench
 * follows by them (docs/runtime.md, "Platform support"). Each behaviour names the date and the
 * flags workerd's compatibility-date.capnp gives it.
 */
import { ConfigError } from './configErrors';

export interface Compatibility {
  /** `YYYY-MM-DD`, or undefined when the config has none (the newest behaviour applies). */
  readonly date: string | undefined;
  readonly flags: readonly string[];
}

export const NEWEST: Compatibility = { date: undefined, flags: [] };

/** The two keys of a wrangler config, checked. */
export function readCompatibility(file: string, config: Readonly<Record<string, unknown>>): Compatibility {
  const date = config['compatibility_date'];
  const flags = config['compatibility_flags'] ?? [];
  if (date !== undefined && (typeof date !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(date)))
    throw new ConfigError(`${file}: "compatibility_date" must be a date such as "2026-04-07"`);
  if (!Array.isArray(flags) || flags.some((flag) => typeof flag !== 'string'))
    throw new ConfigError(`${file}: "compatibility_flags" must be a list of flag names`);
  return { date, flags: flags as string[] };
}

/** Whether a behaviour is on: its enable flag, or its date reached and its disable flag absent. */
function enabled(compatibility: Compatibility, since: string, enable: string, disable: string): boolean {
  if (compatibility.flags.includes(enable)) return true;
  if (compatibility.flags.includes(disable)) return false;
  return compatibility.date === undefined || compatibility.date >= since;
}

/**
 * `web_socket_auto_reply_to_close` (from 2026-04-07): an accept()ed WebSocket answers a peer's
 * close frame at once with the same code and reason, before its close event; before it (or with
 * `web_socket_manual_reply_to_close`) the object's own `close()` is the answer. Hibernatable
 * WebSockets are always answered by the object.
 */
export function autoRepliesToClose(compatibility: Compatibility): boolean {
  return enabled(compatibility, '2026-04-07', 'web_socket_auto_reply_to_close', 'web_socket_manual_reply_to_close');
}
