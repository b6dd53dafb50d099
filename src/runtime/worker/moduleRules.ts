/**
 * The module rules as the loader applies them (docs/runtime.md, "Loading a worker"): the config's
 * rules (read in src/core/workerConfig/moduleRules.ts) then wrangler's defaults, and the esbuild
 * plugin that turns a matching import into its module.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as esbuildType from 'esbuild';
import { DEFAULT_MODULE_RULES, type ModuleRule, type RuleType } from '../../core/workerConfig/moduleRules';

/** The config's rules then the defaults, without those a rule of the same type before them ends. */
export function effectiveRules(userRules: readonly ModuleRule[]): ModuleRule[] {
  const completed = new Set<RuleType>();
  const kept: ModuleRule[] = [];
  for (const rule of [...userRules, ...DEFAULT_MODULE_RULES]) {
    if (completed.has(rule.type)) continue;
    kept.push(rule);
    if (rule.fallthrough !== true) completed.add(rule.type);
  }
  return kept;
}

/** A glob on an import specifier as a whole-string regular expression (`**` spans folders). */
export function globToRegExp(glob: string): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i]!;
    if (ch === '*' && glob[i + 1] === '*') {
      const slash = glob[i + 2] === '/';
      source += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (ch === '*') source += '[^/]*';
    else source += ch.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

export const RULE_NAMESPACE = 'hookbench-module';

/** The module a file becomes under its rule's type. */
function moduleSource(type: RuleType, bytes: Buffer): string {
  if (type === 'Text') return `export default ${JSON.stringify(bytes.toString('utf8'))};`;
  const decoded = `Uint8Array.from(atob(${JSON.stringify(bytes.toString('base64'))}), (c) => c.charCodeAt(0))`;
  if (type === 'Data') return `export default ${decoded}.buffer;`;
  return `export default new WebAssembly.Module(${decoded});`;
}

/** The esbuild plugin that turns imports matching a non-JavaScript rule into their modules. */
export function moduleRulesPlugin(userRules: readonly ModuleRule[]): esbuildType.Plugin {
  const rules = effectiveRules(userRules).filter((rule) => rule.type !== 'ESModule' && rule.type !== 'CommonJS');
  return {
    name: 'hookbench-module-rules',
    setup(build) {
      for (const rule of rules) {
        for (const glob of rule.globs) {
          build.onResolve({ filter: globToRegExp(glob) }, async (args) => {
            if ((args.pluginData as { skip?: boolean } | undefined)?.skip) return undefined;
            const specifier = args.path.replace(/\?.*$/, '');
            const resolved = await build.resolve(specifier, {
              kind: args.kind,
              importer: args.importer,
              resolveDir: args.resolveDir,
              pluginData: { skip: true },
            });
            const file = resolved.errors.length === 0 && resolved.path ? resolved.path : path.join(args.resolveDir, specifier);
            return { path: file, namespace: RULE_NAMESPACE, pluginData: { type: rule.type }, watchFiles: [file] };
          });
        }
      }
      build.onLoad({ filter: /.*/, namespace: RULE_NAMESPACE }, async (args) => {
        const bytes = await fs.promises.readFile(args.path);
        return {
          contents: moduleSource((args.pluginData as { type: RuleType }).type, bytes),
          loader: 'js',
          resolveDir: path.dirname(args.path),
          watchFiles: [args.path],
        };
      });
    },
  };
}
