/**
 * Runs a bundle from V8's code cache, for the small launchers dist/cli.js (src/cliLauncher.ts)
 * and dist/extension.js (src/extensionLauncher.ts). The first run compiles the bundle and, once it
 * has run for a moment (or the process exits), saves V8's compiled code, lazily compiled functions
 * included; later runs hand that back to V8, which checks it against the source and the flags and
 * ignores it when it does not match. The cache lives in the user's own cache folder (mode 0700),
 * is read only when this user owns it and nobody else may write it (planted bytecode would be
 * code), and is keyed by the bundle's path, size, time and inode and by the Node version. Any
 * failure falls back to a plain load; HOOKBENCH_NO_CODE_CACHE=1 turns it off.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import Module from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vm from 'node:vm';

export type CodeCacheOptions = {
  /** The bundle to run, an absolute path. */
  main: string;
  /** Names the cache files: `<name>-<key>.bin`. */
  name: string;
  /** How long the bundle runs before its compiled code is saved, when the process does not exit first. */
  saveAfterMs: number;
  /** The cache folder; by default `$XDG_CACHE_HOME/hookbench/code-cache` (~/.cache). */
  dir?: string;
};

export function defaultCacheDir(): string {
  const base = process.env['XDG_CACHE_HOME'] || path.join(os.homedir(), '.cache');
  return path.join(base, 'hookbench', 'code-cache');
}

export function cacheFile({ main, name, dir = defaultCacheDir() }: CodeCacheOptions): string {
  const stat = fs.statSync(main);
  const key = createHash('sha256').update(`${main}\0${stat.size}\0${stat.mtimeMs}\0${stat.ino}\0${process.version}\0${process.arch}`).digest('hex').slice(0, 32);
  return path.join(dir, `${name}-${key}.bin`);
}

/** The cached code, when this user owns the file and its folder and nobody else may write either. */
function readOwn(file: string): Buffer | undefined {
  try {
    const uid = process.getuid?.();
    for (const target of [path.dirname(file), file]) {
      const stat = fs.statSync(target);
      if ((uid !== undefined && stat.uid !== uid) || (stat.mode & 0o022) !== 0) return undefined;
    }
    return fs.readFileSync(file);
  } catch {
    return undefined;
  }
}

function save(file: string, script: vm.Script): void {
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const aside = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(aside, script.createCachedData(), { mode: 0o600 });
    fs.renameSync(aside, file);
  } catch {
    // A cache that cannot be written only costs the next start its compile.
  }
}

/** What running the bundle did: its exports, and whether V8 took the cached code. */
export type CachedRun = { exports: unknown; cache: 'used' | 'compiled' | 'off' };

/** Runs `main` as a CommonJS module (from the code cache when it can) and answers its exports. */
export function runFromCodeCache(options: CodeCacheOptions): CachedRun {
  const { main } = options;
  const load = Module.createRequire(main);
  if (!vm.constants || process.env['HOOKBENCH_NO_CODE_CACHE'] === '1') return { exports: load(main), cache: 'off' };
  const file = cacheFile(options);
  const cachedData = readOwn(file);
  const script = new vm.Script(Module.wrap(fs.readFileSync(main, 'utf8')), {
    filename: main,
    cachedData,
    // `import()` in the bundle (optional native packages) resolves as it would in a plain load.
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER as never,
  });
  const used = cachedData !== undefined && !script.cachedDataRejected;
  if (!used) {
    let saved = false;
    const saveOnce = () => {
      if (saved) return;
      saved = true;
      save(file, script);
    };
    setTimeout(saveOnce, options.saveAfterMs).unref();
    process.once('exit', saveOnce);
  }
  const mod = new Module(main);
  mod.filename = main;
  mod.paths = load.resolve.paths('hookbench') ?? [];
  const run = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: Module, filename: string, dirname: string) => void;
  run.call(mod.exports, mod.exports, load, mod, main, path.dirname(main));
  mod.loaded = true;
  return { exports: mod.exports, cache: used ? 'used' : 'compiled' };
}
