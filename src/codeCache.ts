/**
 * Runs a bundle from V8's code cache, for the small launchers dist/cli.js (src/cliLauncher.ts)
 * and dist/extension.js (src/extensionLauncher.ts). The first run compiles the bundle and, once it
 * has run for a moment (or the process exits), saves V8's compiled code, lazily compiled functions
 * included; later runs hand that back to V8, which checks it against the source and the flags and
 * ignores it when it does not match. Planted bytecode would be code, and a write through a planted
 * link would clobber a file of the user's (docs/security.md, The code cache), so the cache is used
 * only when every folder from a trusted root down to it (the home folder, or `/` for a cache
 * outside it) is a real folder, not a link, of this user's (or root's) that nobody else may write;
 * the file is read without following a link, and written to a new, randomly named file (created
 * exclusively, never through a link) that is renamed over it. It is keyed by the bundle's path,
 * size, time and inode and by the Node version. Any failure falls back to a plain load;
 * HOOKBENCH_NO_CODE_CACHE=1 turns it off.
 */
import { createHash, randomBytes } from 'node:crypto';
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
  /**
   * The folder trusted as it is, from which every folder down to `dir` is checked: by default the
   * home folder when `dir` is inside it, else the file system's root.
   */
  root?: string;
};

export function defaultCacheDir(): string {
  const base = process.env['XDG_CACHE_HOME'] || path.join(os.homedir(), '.cache');
  return path.join(base, 'hookbench', 'code-cache');
}

export function cacheFile({ main, name, dir = defaultCacheDir() }: CodeCacheOptions): string {
  const stat = fs.statSync(main);
  const key = createHash('sha256')
    .update(`${main}\0${stat.size}\0${stat.mtimeMs}\0${stat.ino}\0${process.version}\0${process.arch}`)
    .digest('hex')
    .slice(0, 32);
  return path.join(dir, `${name}-${key}.bin`);
}

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL } = fs.constants;
// Windows has no O_NOFOLLOW (0 there): its links need privileges to make.
const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;

const isInside = (outer: string, inner: string): boolean => {
  const relative = path.relative(outer, inner);
  return relative !== '' && relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative);
};

function trustedRoot(dir: string): string {
  const home = os.homedir();
  return isInside(home, dir) ? home : path.parse(dir).root;
}

/** Owned by this user or root, and writable by neither group nor others. */
function isPrivate(stat: fs.Stats): boolean {
  const uid = process.getuid?.();
  return (uid === undefined || stat.uid === uid || stat.uid === 0) && (stat.mode & 0o022) === 0;
}

/**
 * Whether every folder below `root` down to `dir` is a real folder (lstat: a link is not) that
 * only this user may change; with `create`, missing ones are made (0700) on the way. Anyone who
 * could write one of them could swap what lies below it.
 */
function privateChain(root: string, dir: string, create: boolean): boolean {
  if (!isInside(root, dir)) return false;
  let current = root;
  for (const part of path.relative(root, dir).split(path.sep)) {
    current = path.join(current, part);
    let stat = fs.lstatSync(current, { throwIfNoEntry: false });
    if (!stat && create) {
      fs.mkdirSync(current, { mode: 0o700 });
      stat = fs.lstatSync(current);
    }
    if (!stat?.isDirectory() || !isPrivate(stat)) return false;
  }
  return true;
}

/** The cached code, when its folders are private (privateChain) and the file is this user's and nobody else may write it. */
function readOwn(file: string, root: string): Buffer | undefined {
  try {
    if (!privateChain(root, path.dirname(file), false)) return undefined;
    const fd = fs.openSync(file, O_RDONLY | O_NOFOLLOW);
    try {
      const stat = fs.fstatSync(fd);
      const uid = process.getuid?.();
      if (!stat.isFile() || (uid !== undefined && stat.uid !== uid) || (stat.mode & 0o022) !== 0) return undefined;
      return fs.readFileSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

function save(file: string, root: string, script: vm.Script): void {
  let aside: string | undefined;
  try {
    if (!privateChain(root, path.dirname(file), true)) return;
    // A fresh name, created exclusively and never through a link: nothing planted beforehand is written to.
    aside = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(8).toString('hex')}.tmp`);
    const fd = fs.openSync(aside, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
    try {
      fs.writeFileSync(fd, script.createCachedData());
    } finally {
      fs.closeSync(fd);
    }
    // rename replaces whatever is at `file`, a link included, and never follows it.
    fs.renameSync(aside, file);
  } catch {
    // A cache that cannot be written only costs the next start its compile.
    if (aside) fs.rmSync(aside, { force: true });
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
  const root = options.root ?? trustedRoot(path.dirname(file));
  const cachedData = readOwn(file, root);
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
      save(file, root, script);
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
