/**
 * A project made from one of create-cloudflare's templates the way C3 makes it
 * (create-cloudflare 2.74.0, `dist/cli.js`: the template's variant folder copied,
 * `__dot__gitignore` renamed, `<PACKAGE_NAME>` in package.json and `<WORKER_NAME>` /
 * `<COMPATIBILITY_DATE>` in the wrangler config replaced, then `$schema`, `name`,
 * `compatibility_date`, `observability`, `upload_source_maps` and the nodejs_compat flags set).
 * The worker's code is never touched.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { stripJsonc } from '../../../../src/core/workerConfig/wranglerConfig';

/** C3 drops these flags from a date where they are on by default, and adds `nodejs_compat` before it. */
const NODEJS_COMPAT_FLAGS = ['nodejs_compat', 'nodejs_compat_v2'];
const NODEJS_COMPAT_DEFAULT_ON_DATE = '2026-08-04';

/**
 * The compatibility date a project gets. C3 2.74.0 writes its own (2026-10-06), which the oracle's
 * workerd refuses ("the newest date supported by this server binary is …"); earlier C3s asked the
 * installed workerd, and so does this: the date its package names.
 */
export function workerdCompatibilityDate(oracleModules: string): string {
  const main = path.join(oracleModules, 'workerd', 'lib', 'main.js');
  const found = /compatibilityDate = "(\d{4}-\d{2}-\d{2})"/.exec(fs.readFileSync(main, 'utf8'));
  if (!found) throw new Error(`no compatibilityDate in ${main}`);
  return found[1]!;
}

/** C3's `reconcileNodejsCompatFlags`: the flags to write, or undefined to leave them as they are. */
function nodejsCompatFlags(date: string, flags: readonly string[]): string[] | undefined {
  if (date >= NODEJS_COMPAT_DEFAULT_ON_DATE) {
    const kept = flags.filter((flag) => !NODEJS_COMPAT_FLAGS.includes(flag));
    return kept.length === flags.length ? undefined : kept;
  }
  return flags.some((flag) => [...NODEJS_COMPAT_FLAGS, 'no_nodejs_compat'].includes(flag)) ? undefined : ['nodejs_compat', ...flags];
}

function replacePlaceholders(value: unknown, substitutions: Readonly<Record<string, string>>): unknown {
  if (typeof value === 'string') return Object.entries(substitutions).reduce((text, [from, to]) => text.replaceAll(from, to), value);
  if (Array.isArray(value)) return value.map((item) => replacePlaceholders(item, substitutions));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, replacePlaceholders(item, substitutions)]));
  return value;
}

/** C3's `updateWranglerConfig` for a wrangler.jsonc (comments are not kept: they change nothing a runtime reads). */
function fillWranglerConfig(file: string, name: string, date: string): void {
  const raw = replacePlaceholders(JSON.parse(stripJsonc(fs.readFileSync(file, 'utf8'))), { '<WORKER_NAME>': name, '<COMPATIBILITY_DATE>': date }) as Record<
    string,
    unknown
  >;
  const written = typeof raw['compatibility_date'] === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(raw['compatibility_date']) ? raw['compatibility_date'] : date;
  const config: Record<string, unknown> = {
    $schema: 'node_modules/wrangler/config-schema.json',
    ...raw,
    name,
    compatibility_date: written,
    observability: { enabled: true },
    upload_source_maps: true,
  };
  const flags = nodejsCompatFlags(written, Array.isArray(config['compatibility_flags']) ? (config['compatibility_flags'] as string[]) : []);
  if (flags?.length === 0) delete config['compatibility_flags'];
  else if (flags) config['compatibility_flags'] = flags;
  fs.writeFileSync(file, `${JSON.stringify(config, null, '\t')}\n`);
}

/** C3's `updatePackageName`: a placeholder name becomes the project's. */
function fillPackageName(file: string, name: string): void {
  const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  if (!['<PACKAGE_NAME>', '<TBD>', 'TBD', ''].includes(String(pkg['name']))) return;
  fs.writeFileSync(file, `${JSON.stringify({ ...pkg, name }, null, '\t')}\n`);
}

export interface TemplateProject {
  /** The template's folder under create-cloudflare's `templates/`, e.g. `hello-world-durable-object`. */
  readonly template: string;
  readonly variant: 'js' | 'ts';
  /** The project's name, as given to C3. */
  readonly name: string;
}

/** Makes the project in `work` from the installed create-cloudflare in `modules`. */
export function createProject(project: TemplateProject, work: string, tools: { readonly modules: string; readonly oracleModules: string }): void {
  const source = path.join(tools.modules, 'create-cloudflare', 'templates', project.template, project.variant);
  if (!fs.existsSync(source)) throw new Error(`create-cloudflare has no template ${project.template}/${project.variant} (looked in ${source})`);
  fs.cpSync(source, work, { recursive: true, force: true });
  const gitignore = path.join(work, '__dot__gitignore');
  if (fs.existsSync(gitignore)) fs.renameSync(gitignore, path.join(work, '.gitignore'));
  const packageJson = path.join(work, 'package.json');
  if (fs.existsSync(packageJson)) fillPackageName(packageJson, project.name);
  fillWranglerConfig(path.join(work, 'wrangler.jsonc'), project.name, workerdCompatibilityDate(tools.oracleModules));
}
