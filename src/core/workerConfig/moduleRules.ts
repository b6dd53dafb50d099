/**
 * Module rules: which imported files become modules of another kind than JavaScript, as wrangler
 * bundles them (docs/runtime.md, "Loading a worker"). The defaults are wrangler's: `**\/*.txt`,
 * `**\/*.html`, `**\/*.sql` as Text (a string), `**\/*.bin` as Data (an ArrayBuffer), `**\/*.wasm`
 * and `**\/*.wasm?module` as CompiledWasm (a `WebAssembly.Module`). A config's `rules` come first;
 * the first rule of a type without `fallthrough: true` ends that type's list (later rules of the
 * type, the defaults included, are dropped), as wrangler's `parseRules` does. ESModule and
 * CommonJS rules name JavaScript, which esbuild bundles itself.
 */
import { ConfigError } from './configErrors';

export const RULE_TYPES = ['ESModule', 'CommonJS', 'CompiledWasm', 'Text', 'Data'] as const;
export type RuleType = (typeof RULE_TYPES)[number];

export interface ModuleRule {
  readonly type: RuleType;
  readonly globs: readonly string[];
  readonly fallthrough?: boolean;
}

export const DEFAULT_MODULE_RULES: readonly ModuleRule[] = [
  { type: 'Text', globs: ['**/*.txt', '**/*.html', '**/*.sql'] },
  { type: 'Data', globs: ['**/*.bin'] },
  { type: 'CompiledWasm', globs: ['**/*.wasm', '**/*.wasm?module'] },
];

/** A config's `rules`, checked. */
export function readModuleRules(file: string, raw: unknown): ModuleRule[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw new ConfigError(`${file}: "rules" must be a list of { type, globs, fallthrough }`);
  return raw.map((entry: unknown, i) => {
    const rule = (entry ?? {}) as Record<string, unknown>;
    if (!RULE_TYPES.includes(rule['type'] as RuleType)) throw new ConfigError(`${file}: rules[${i}].type must be one of ${RULE_TYPES.join(', ')}`);
    const globs = rule['globs'];
    if (!Array.isArray(globs) || globs.some((glob) => typeof glob !== 'string'))
      throw new ConfigError(`${file}: rules[${i}].globs must be a list of glob patterns`);
    const fallthrough = rule['fallthrough'];
    if (fallthrough !== undefined && typeof fallthrough !== 'boolean') throw new ConfigError(`${file}: rules[${i}].fallthrough must be true or false`);
    return { type: rule['type'] as RuleType, globs: globs as string[], ...(fallthrough === undefined ? {} : { fallthrough }) };
  });
}
