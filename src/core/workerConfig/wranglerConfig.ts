/**
 * The parts of a wrangler config (`wrangler.jsonc`, `wrangler.json` or `wrangler.toml`) the
 * runtime needs: the entry, the Durable Object bindings and the plain vars.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { readBindingsConfig, type BindingsConfig } from './bindingsConfig';
import { ConfigError, UnsupportedConfigError } from './configErrors';
import { checkConfigKeys, ESCAPE_HATCH } from './support';
import { readCompatibility, type Compatibility } from './compatibility';
import { readModuleRules, type ModuleRule } from './moduleRules';

/** The `assets` key, read: Workers Static Assets (served by src/runtime/worker/assets.ts). */
export interface AssetsConfig {
  readonly directory: string;
  readonly binding?: string;
  readonly htmlHandling: 'auto-trailing-slash' | 'none';
  readonly notFoundHandling: 'none' | '404-page' | 'single-page-application';
  /** true/false, or route patterns (`/api/*`, `!/api/docs/*`). */
  readonly runWorkerFirst: boolean | readonly string[];
}

export interface DurableObjectBinding {
  readonly name: string;
  readonly className: string;
}

/** `workflows: [{ name, binding, class_name }]`. */
export interface WorkflowConfig {
  readonly name: string;
  readonly binding: string;
  readonly className: string;
}

export interface WranglerConfig {
  readonly file: string;
  readonly main: string | undefined;
  readonly durableObjects: readonly DurableObjectBinding[];
  /** Plain vars: a string stays a string, any other JSON value is handed to the worker as is. */
  readonly vars: Readonly<Record<string, unknown>>;
  readonly workflows?: readonly WorkflowConfig[];
  /** KV, D1, R2, queues, service bindings and cron triggers. */
  readonly bindings?: BindingsConfig;
  /** Workers Static Assets, when the config has `assets`. */
  readonly assets?: AssetsConfig;
  /** Module rules (`rules`): which imported files are Text, Data or CompiledWasm modules. */
  readonly rules?: readonly ModuleRule[];
  /** `compatibility_date` and `compatibility_flags`. */
  readonly compatibility?: Compatibility;
  /** Keys the platform table does not know, one line each, for the log. */
  readonly notes?: readonly string[];
}

/** A wrangler config's names, in the order wrangler looks for them in a folder. */
export const WRANGLER_CONFIG_NAMES: readonly string[] = ['wrangler.jsonc', 'wrangler.json', 'wrangler.toml'];
/** The secrets file beside a config, in the order serve and wrangler dev look for it. */
export const SECRETS_FILE_NAMES: readonly string[] = ['.dev.vars', '.env'];

/** The nearest wrangler config in `dir` or a folder above it, as wrangler itself looks for one. */
export function findWranglerConfig(dir: string): string | undefined {
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    const found = WRANGLER_CONFIG_NAMES.map((name) => path.join(current, name)).find((file) => fs.existsSync(file));
    if (found) return found;
    if (path.dirname(current) === current) return undefined;
  }
}

/** Removes // and /* comments and trailing commas outside strings (JSONC → JSON). */
export function stripJsonc(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '"') {
      const start = i++;
      while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      out += text.slice(start, ++i);
    } else if (ch === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (ch === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
    } else {
      out += ch;
      i++;
    }
  }
  return out.replace(/,(\s*[}\]])/g, '$1');
}

export function readWranglerConfig(file: string): WranglerConfig {
  let raw: unknown;
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    raw = file.endsWith('.toml') ? parseToml(text) : JSON.parse(stripJsonc(text));
  } catch (error) {
    throw new ConfigError(`${file} is not valid ${file.endsWith('.toml') ? 'TOML' : 'JSON(C)'}: ${(error as Error).message}`);
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new ConfigError(`${file}: the top level must be an object`);
  const config = raw as Record<string, unknown>;
  // Anything not emulated stops here, with its one line (src/core/workerConfig/support.ts).
  const notes = checkConfigKeys(file, config, (line) => new UnsupportedConfigError(line));
  const bindings = (config['durable_objects'] as { bindings?: unknown } | undefined)?.bindings ?? [];
  if (!Array.isArray(bindings)) throw new ConfigError(`${file}: durable_objects.bindings must be a list`);
  const durableObjects = bindings.map((binding, i) => {
    const b = binding as Record<string, unknown>;
    if (typeof b['name'] !== 'string' || typeof b['class_name'] !== 'string') {
      throw new ConfigError(`${file}: durable_objects.bindings[${i}] needs a "name" and a "class_name"`);
    }
    if (b['script_name'] !== undefined)
      throw new ConfigError(
        `${file}: Durable Object binding ${b['name']} points at another worker (script_name), which Hookbench does not run; nearest supported: export the class from this worker; ${ESCAPE_HATCH}`,
      );
    return { name: b['name'], className: b['class_name'] };
  });
  // As on Cloudflare, a var that is not a string is a JSON binding: the worker sees the value.
  const vars: Record<string, unknown> = { ...((config['vars'] as Record<string, unknown> | undefined) ?? {}) };
  const workflowList = config['workflows'] ?? [];
  if (!Array.isArray(workflowList)) throw new ConfigError(`${file}: workflows must be a list`);
  const workflows = workflowList.map((entry, i) => {
    const w = entry as Record<string, unknown>;
    if (typeof w['name'] !== 'string' || typeof w['binding'] !== 'string' || typeof w['class_name'] !== 'string') {
      throw new ConfigError(`${file}: workflows[${i}] needs a "name", a "binding" and a "class_name"`);
    }
    if (w['script_name'] !== undefined)
      throw new ConfigError(`${file}: workflow ${w['binding']} points at another worker (script_name), which Hookbench cannot run`);
    return { name: w['name'], binding: w['binding'], className: w['class_name'] };
  });
  const main = typeof config['main'] === 'string' ? path.resolve(path.dirname(file), config['main']) : undefined;
  const assets = config['assets'] === undefined ? undefined : readAssets(file, config['assets']);
  const compatibility = readCompatibility(file, config);
  const rules = readModuleRules(file, config['rules']);
  return {
    file,
    main,
    durableObjects,
    vars,
    workflows,
    bindings: readBindingsConfig(file, config),
    compatibility,
    rules,
    notes,
    ...(assets ? { assets } : {}),
  };
}

/** The secrets file wrangler dev reads beside a config: `.dev.vars`, or else `.env`; undefined when neither exists. */
export function secretsFileBeside(configFile: string): string | undefined {
  return SECRETS_FILE_NAMES.map((name) => path.join(path.dirname(path.resolve(configFile)), name)).find((file) => fs.existsSync(file));
}

/** The variables of a secrets file (`secretsFileBeside`), or none when there is no file or it cannot be read. */
export function secretsBeside(configFile: string): Record<string, string> {
  const file = secretsFileBeside(configFile);
  try {
    return file ? parseDevVars(fs.readFileSync(file, 'utf8')) : {};
  } catch {
    return {};
  }
}

/** `.dev.vars` / `.env` format: KEY=value lines, # comments, optional quotes. */
export function parseDevVars(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (!match || line.trimStart().startsWith('#')) continue;
    let value = match[2]!;
    const quoted = /^(['"])(.*)\1$/s.exec(value);
    if (quoted) value = quoted[1] === '"' ? quoted[2]!.replace(/\\n/g, '\n').replace(/\\"/g, '"') : quoted[2]!;
    else value = value.replace(/\s+#.*$/, '');
    out[match[1]!] = value;
  }
  return out;
}

const HTML_HANDLING = ['auto-trailing-slash', 'force-trailing-slash', 'drop-trailing-slash', 'none'];
const NOT_FOUND_HANDLING = ['none', '404-page', 'single-page-application'];

/** The `assets` section, checked as wrangler checks it; what is valid but not emulated is refused with the escape hatch. */
function readAssets(file: string, raw: unknown): AssetsConfig {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new ConfigError(`${file}: "assets" must be an object`);
  const a = raw as Record<string, unknown>;
  // Configs written for the Cloudflare Vite plugin leave `directory` out: the plugin fills it in
  // from its client build. wrangler dev refuses them too ("missing the required `directory`").
  if (a['directory'] === undefined) {
    throw new UnsupportedConfigError(
      `${file}: "assets" has no "directory" (wrangler dev refuses this too: the Cloudflare Vite plugin fills it in from its build); build the client (vite build) and pass --config a copy whose "assets.directory" is the built folder, e.g. dist/client`,
    );
  }
  if (typeof a['directory'] !== 'string') throw new ConfigError(`${file}: "assets.directory" must be the folder of the static files`);
  const directory = path.resolve(path.dirname(file), a['directory']);
  if (!fs.existsSync(directory) || !fs.statSync(directory).isDirectory()) throw new ConfigError(`${file}: "assets.directory" ${directory} is not a folder`);
  const binding = a['binding'];
  if (binding !== undefined && (typeof binding !== 'string' || !/^[A-Za-z_$][\w$]*$/.test(binding)))
    throw new ConfigError(`${file}: "assets.binding" must be a binding name such as ASSETS`);
  const html = a['html_handling'] ?? 'auto-trailing-slash';
  if (typeof html !== 'string' || !HTML_HANDLING.includes(html))
    throw new ConfigError(`${file}: "assets.html_handling" must be one of ${HTML_HANDLING.join(', ')}`);
  if (html !== 'auto-trailing-slash' && html !== 'none') {
    throw new UnsupportedConfigError(
      `${file}: "assets.html_handling": "${html}" is not emulated by Hookbench; nearest supported: "auto-trailing-slash" (the default) or "none"; ${ESCAPE_HATCH}`,
    );
  }
  const notFound = a['not_found_handling'] ?? 'none';
  if (typeof notFound !== 'string' || !NOT_FOUND_HANDLING.includes(notFound))
    throw new ConfigError(`${file}: "assets.not_found_handling" must be one of ${NOT_FOUND_HANDLING.join(', ')}`);
  const first = a['run_worker_first'] ?? false;
  if (Array.isArray(first)) {
    if (first.length === 0) throw new ConfigError(`${file}: No \`run_worker_first\` rules were provided; must provide at least 1 rule.`);
    for (const rule of first) {
      if (typeof rule !== 'string' || !(rule.startsWith('/') || rule.startsWith('!/')))
        throw new ConfigError(`${file}: "assets.run_worker_first" rule ${JSON.stringify(rule)}: rules must start with '/' or '!/'`);
    }
    if (!first.some((rule: string) => rule.startsWith('/')))
      throw new ConfigError(`${file}: Only negative \`run_worker_first\` rules were provided; must provide at least 1 non-negative rule`);
  } else if (typeof first !== 'boolean') throw new ConfigError(`${file}: "assets.run_worker_first" must be true, false or a list of route patterns`);
  for (const key of Object.keys(a)) {
    if (!['directory', 'binding', 'html_handling', 'not_found_handling', 'run_worker_first'].includes(key)) {
      throw new UnsupportedConfigError(`${file}: "assets.${key}" is not emulated by Hookbench; nearest supported: leave it out; ${ESCAPE_HATCH}`);
    }
  }
  return {
    directory,
    ...(binding ? { binding: binding as string } : {}),
    htmlHandling: html,
    notFoundHandling: notFound as AssetsConfig['notFoundHandling'],
    runWorkerFirst: first as boolean | string[],
  };
}
