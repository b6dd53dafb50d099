/**
 * dist/cli.js: runs the CLI bundle beside it (dist/cliMain.js, built from src/cli.ts) from V8's
 * code cache. The bundle is 6 MB; compiling it was the larger part of `hookbench serve`'s start
 * (docs/performance.md). The first run compiles it and, once the command has run for a moment
 * (or exits), saves V8's compiled code, lazily compiled functions included; later runs hand that
 * back to V8, which checks it against the source and the flags and ignores it when it does not
 * match. The cache lives in the user's own cache folder (mode 0700), is read only when this user
 * owns it and nobody else may write it (planted bytecode would be code), and is keyed by the
 * bundle's size, time and inode and by the Node version. Any failure falls back to a plain load.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import Module from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vm from 'node:vm';

const MAIN = path.join(__dirname, 'cliMain.js');
/** How long the command runs before its compiled code is saved, when it does not exit first. */
const SAVE_AFTER_MS = 2_000;

function cacheDir(): string {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'hookbench', 'code-cache');
}

function cacheFile(): string {
  const stat = fs.statSync(MAIN);
  const key = createHash('sha256').update(`${MAIN}\0${stat.size}\0${stat.mtimeMs}\0${stat.ino}\0${process.version}\0${process.arch}`).digest('hex').slice(0, 32);
  return path.join(cacheDir(), `cli-${key}.bin`);
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

function launch(): void {
  const file = cacheFile();
  const cachedData = readOwn(file);
  const source = fs.readFileSync(MAIN, 'utf8');
  const script = new vm.Script(Module.wrap(source), {
    filename: MAIN,
    cachedData,
    // `import()` in the bundle (optional native packages) resolves as it would in a plain load.
    importModuleDynamically: vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER as never,
  });
  if (cachedData === undefined || script.cachedDataRejected) {
    let saved = false;
    const saveOnce = () => {
      if (saved) return;
      saved = true;
      save(file, script);
    };
    setTimeout(saveOnce, SAVE_AFTER_MS).unref();
    process.once('exit', saveOnce);
  }
  const main = new Module(MAIN, module);
  main.filename = MAIN;
  main.paths = module.paths;
  const run = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: Module, filename: string, dirname: string) => void;
  run.call(main.exports, main.exports, Module.createRequire(MAIN), main, MAIN, __dirname);
}

if (!vm.constants || process.env.HOOKBENCH_NO_CODE_CACHE === '1') Module.createRequire(__filename)(MAIN);
else launch();
