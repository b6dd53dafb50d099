/**
 * The tables the runtime keeps in an instance's database beside the worker's own: the journal's
 * position (`_hookbench_meta`), workerd's (`_cf_KV` for `ctx.storage.put`, `_cf_ALARM`), and the
 * agents SDK's (`cf_agents_state`, `cf_agents_jobs`, `cf_agents_workflows`). The admin API's
 * read-write console may read them but never change them (docs/admin-api.md): a changed or
 * renamed one breaks the instance on its next wake.
 *
 * By prefix, as the SDKs reserve them: workerd refuses `_cf_` names to user code, and every table
 * the agents SDK adds is named `cf_agents_…`.
 */
export const OWN_TABLE_PREFIXES = ['_hookbench', '_cf_', 'cf_agents_'] as const;

/**
 * Whether `name` is one of the runtime's tables, or would be taken for one. SQLite compares names
 * ignoring ASCII case only, so this does too.
 */
export function isOwnTable(name: string): boolean {
  const lower = name.replace(/[A-Z]/g, (c) => c.toLowerCase());
  return OWN_TABLE_PREFIXES.some((prefix) => lower.startsWith(prefix));
}

/** SQLite's own schema tables: rows in them are the schema, written only with `writable_schema`. */
export function isSchemaTable(name: string): boolean {
  return /^sqlite_(?:temp_)?(?:master|schema)$/i.test(name);
}
