/**
 * What of a wrangler config Hookbench runs: the one table of top-level keys, each supported,
 * without local effect (ignored, as `wrangler dev` ignores it too or it only matters when
 * deploying), or not emulated. A key that is not emulated stops `hookbench serve` at start with
 * one line naming it, the nearest supported alternative and the escape hatch, never a silent
 * `undefined` binding. Supporting a key is one line here (and its reader in wranglerConfig.ts).
 */

export type KeySupport =
  | { readonly status: 'supported' }
  | { readonly status: 'ignored'; readonly why: string }
  | { readonly status: 'unsupported'; readonly what: string; readonly instead: string };

const supported: KeySupport = { status: 'supported' };
const ignored = (why: string): KeySupport => ({ status: 'ignored', why });
const unsupported = (what: string, instead: string): KeySupport => ({ status: 'unsupported', what, instead });

/** The escape hatch every refusal names. */
export const ESCAPE_HATCH =
  'or run the worker under `wrangler dev` and attach the Hookbench explorer to its URL (Hookbench: Attach to Deployed Worker, which takes a local URL too)';

export const CONFIG_KEYS: Readonly<Record<string, KeySupport>> = {
  // The worker itself
  main: supported,
  durable_objects: supported,
  vars: supported,
  assets: supported,
  kv_namespaces: supported,
  d1_databases: supported,
  r2_buckets: supported,
  queues: supported,
  triggers: supported,
  workflows: supported,
  ratelimits: supported,
  analytics_engine_datasets: supported,
  send_email: supported,
  // Service bindings to this worker's own entrypoints; one to another worker is refused where it is read (bindingsConfig.ts).
  services: supported,
  // Browser Rendering: sessions on the render emulator's Chromium (bindings/browser.ts).
  browser: supported,
  // Without local effect
  $schema: ignored('editor schema'),
  name: ignored('the worker name matters when deploying'),
  account_id: ignored('deploy-time'),
  compatibility_date: supported,
  compatibility_flags: supported,
  migrations: ignored('Durable Object classes are created on first use, SQLite-backed'),
  workers_dev: ignored('deploy-time'),
  preview_urls: ignored('deploy-time'),
  route: ignored('deploy-time: every path of the local origin reaches the worker'),
  routes: ignored('deploy-time: every path of the local origin reaches the worker'),
  observability: ignored('logs go to the Hookbench log'),
  secrets: ignored('names the secrets the worker needs; their values come from .dev.vars / --env-file'),
  logpush: ignored('deploy-time'),
  placement: ignored('deploy-time'),
  limits: ignored('no CPU limit locally'),
  upload_source_maps: ignored('deploy-time'),
  minify: ignored('bundling for a deploy'),
  keep_vars: ignored('deploy-time'),
  dev: ignored('wrangler dev settings: Hookbench takes --host/--port'),
  build: ignored('Hookbench bundles the entry itself; run your build first'),
  env: ignored('named environments: Hookbench reads the top level (as wrangler dev without --env)'),
  tsconfig: ignored('Hookbench bundles with esbuild defaults'),
  rules: supported,
  node_compat: ignored('worker code runs on Node'),
  no_bundle: ignored('Hookbench always bundles'),
  find_additional_modules: ignored('Hookbench always bundles'),
  base_dir: ignored('Hookbench always bundles'),
  preserve_file_names: ignored('Hookbench always bundles'),
  send_metrics: ignored('Hookbench sends nothing'),
  // Not emulated (yet)
  ai: unsupported('Workers AI', 'call a model over HTTP with fetch()'),
  vectorize: unsupported('Vectorize', 'keep vectors in a Durable Object'),
  hyperdrive: unsupported('Hyperdrive', 'connect to the database directly with its connection string in .dev.vars'),
  dispatch_namespaces: unsupported('Workers for Platforms dispatch namespaces', 'run each user worker with its own `hookbench serve`'),
  mtls_certificates: unsupported('mTLS certificates', 'fetch() without a client certificate locally'),
  tail_consumers: unsupported('tail consumers', 'read the Hookbench log'),
  version_metadata: unsupported('the version metadata binding', 'a var in `vars`'),
  secrets_store_secrets: unsupported('Secrets Store', 'put the secret in .dev.vars'),
  pipelines: unsupported('Pipelines', 'send the records with fetch()'),
  images: unsupported('the Images binding', 'transform images with fetch() to an image service'),
  containers: unsupported('Containers', 'run the container yourself and reach it with fetch()'),
  unsafe: unsupported('unsafe bindings', 'remove them for local runs'),
  site: unsupported('Workers Sites', 'move the files to Workers Static Assets ("assets": { "directory": … })'),
  alias: unsupported('module aliases', 'import the module by its path'),
  define: unsupported('build-time defines', 'read the value from `vars`'),
  wasm_modules: unsupported('wasm_modules', 'import the .wasm file from the entry'),
  text_blobs: unsupported('text_blobs', 'import the text file from the entry'),
  data_blobs: unsupported('data_blobs', 'import the file from the entry'),
  cloudchamber: unsupported('Cloudchamber', 'run the container yourself'),
  ai_search: unsupported('AI Search', 'query your search service with fetch()'),
  ai_search_namespaces: unsupported('AI Search', 'query your search service with fetch()'),
  logfwdr: unsupported('logfwdr', 'read the Hookbench log'),
  stream: unsupported('the Stream binding', 'call the Stream API with fetch()'),
  media: unsupported('the Media Transformations binding', 'transform media with fetch() to a media service'),
  artifacts: unsupported('the Artifacts binding', 'keep the files in R2 (r2_buckets)'),
  flagship: unsupported('the Flagship binding', 'a var in `vars`'),
  worker_loaders: unsupported('Worker Loaders', 'run each loaded worker with its own `hookbench serve`'),
  vpc_services: unsupported('VPC services', 'reach the service with fetch() from your machine'),
  vpc_networks: unsupported('VPC networks', 'reach the service with fetch() from your machine'),
  unsafe_hello_world: unsupported('the Hello World test binding', 'remove it for local runs'),
};

/** One line for a config key Hookbench does not emulate: what, where, the nearest alternative, the escape hatch. */
export function unsupportedMessage(file: string, key: string, support: Extract<KeySupport, { status: 'unsupported' }>, names: readonly string[] = []): string {
  const which = names.length ? ` (${names.join(', ')})` : '';
  return `${file}: "${key}"${which}: ${support.what} is not emulated by Hookbench; nearest supported: ${support.instead}; ${ESCAPE_HATCH}`;
}

/** True for a key present but empty (`[]`, `{}`, `{ "crons": [] }`): it asks for nothing. */
function empty(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object') return Object.values(value).every((inner) => (Array.isArray(inner) ? inner.length === 0 : inner === undefined));
  return false;
}

/** The binding names under a key (`[{ "binding": "KV" }]` → KV), for the refusal's line. */
function bindingNames(value: unknown): string[] {
  const items = Array.isArray(value) ? value : value && typeof value === 'object' ? [value] : [];
  return items
    .map((item) => (item && typeof item === 'object' ? ((item as Record<string, unknown>)['binding'] ?? (item as Record<string, unknown>)['name']) : undefined))
    .filter((name): name is string => typeof name === 'string');
}

/**
 * Checks a config's top-level keys against the table: the first key Hookbench does not emulate
 * is refused (thrown as `refuse(line)`), and so is a key the table does not know that declares
 * bindings (entries with a `binding` or `name`: a newer wrangler's binding type), since the
 * worker would otherwise see them `undefined`; other unknown keys are returned as notes to log
 * (a typo wrangler would warn about too).
 */
export function checkConfigKeys(file: string, config: Readonly<Record<string, unknown>>, refuse: (line: string) => Error): string[] {
  const notes: string[] = [];
  for (const [key, value] of Object.entries(config)) {
    const support = CONFIG_KEYS[key];
    if (!support) {
      const names = bindingNames(value);
      if (names.length > 0)
        throw refuse(
          `${file}: "${key}" (${names.join(', ')}): a binding type Hookbench does not know, so it is not emulated; nearest supported: the bindings in docs/runtime.md's table; ${ESCAPE_HATCH}`,
        );
      notes.push(`${file}: "${key}" is not a key Hookbench knows; it is ignored (if it declares a binding, that binding is missing: ${ESCAPE_HATCH})`);
      continue;
    }
    if (support.status === 'unsupported' && !empty(value)) throw refuse(unsupportedMessage(file, key, support, bindingNames(value)));
  }
  return notes;
}

/**
 * Modules a worker may import that Hookbench provides no emulation of, with the nearest supported
 * alternative: the refusal at start names it (loader.ts), as a config key's refusal does.
 */
const MODULE_ALTERNATIVES: readonly (readonly [RegExp, string])[] = [
  [/^agents\/workflows$/, 'a Workflow class from cloudflare:workers (WorkflowEntrypoint) started with env.<BINDING>.create() from the agent'],
  [/^agents\/mcp(\/.*)?$/, 'an Agent with @callable methods, called over the agents protocol'],
  [/^agents\/email$/, "a webhook route that receives your email provider's inbound webhook"],
  [/^agents\/(react|client)$/, "import it from the dashboard's browser bundle, not from the worker"],
];

/** The one line that refuses a worker importing `id`, a module Hookbench does not emulate. */
export function unemulatedModuleMessage(id: string): string {
  const instead = MODULE_ALTERNATIVES.find(([pattern]) => pattern.test(id))?.[1] ?? 'the `agents` entry point and `cloudflare:workers`';
  return `the worker imports "${id}", which Hookbench does not emulate yet; nearest supported: ${instead}; ${ESCAPE_HATCH}`;
}

/**
 * Agent methods of the real SDK that a worker's own code may call, with what they are and the
 * nearest supported alternative. One the emulated `Agent` lacks is refused at start (a call would
 * otherwise fail later with "is not a function"); emulating one makes its refusal disappear.
 */
const SDK_AGENT_METHODS: readonly (readonly [string, string, string])[] = [
  ['addMcpServer', "the SDK's MCP client", "call the MCP server's HTTP endpoint with fetch()"],
  ['removeMcpServer', "the SDK's MCP client", "call the MCP server's HTTP endpoint with fetch()"],
  ['getMcpServers', "the SDK's MCP client", "call the MCP server's HTTP endpoint with fetch()"],
  ['runWorkflow', "the SDK's workflow integration", 'env.<BINDING>.create() of a WorkflowEntrypoint'],
];

/**
 * The one line that refuses a worker whose code calls an SDK method the emulation lacks
 * (`emulated(name)` false), or undefined.
 */
export function unemulatedCallMessage(code: string, emulated: (method: string) => boolean): string | undefined {
  for (const [method, what, instead] of SDK_AGENT_METHODS) {
    if (emulated(method) || !new RegExp(`\\.${method}\\s*\\(`).test(code)) continue;
    return `the worker calls ${method}() (${what}), which Hookbench does not emulate yet; nearest supported: ${instead}; ${ESCAPE_HATCH}`;
  }
  return undefined;
}
