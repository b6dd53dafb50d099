// @ts-check
// Everything `npm test` and `npm start` need on a fresh Debian machine, each step skipped quickly
// when already done: the npm packages, Debian's Chromium and ripgrep, and a code-server (a real
// VS Code for the browser) prepared offline as DESIGN §4 describes.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { withLock } from './lock.mjs';
import { run, runQuiet, step } from './run.mjs';

export const root = path.resolve(import.meta.dirname, '../..');

/**
 * The fonts that reproduce Cloudflare Browser Rendering's installed set as far as Debian's main
 * archive allows (src/core/render/fontCatalog.ts says which family each gives; a unit test keeps
 * the two lists equal).
 */
export const FONT_PACKAGES = [
  'fonts-dejavu', 'fonts-freefont-ttf', 'fonts-gfs-neohellenic', 'fonts-indic', 'fonts-ipafont-gothic', 'fonts-kacst', 'fonts-liberation',
  'fonts-noto-cjk', 'fonts-noto-color-emoji', 'fonts-open-sans', 'fonts-roboto', 'fonts-thai-tlwg', 'fonts-urw-base35', 'fonts-wqy-zenhei', 'ttf-bitstream-vera',
];

/** Debian packages: the browser that drives VS Code and renders pages, ripgrep for VS Code's search, Kerberos headers for code-server's native module, and the fonts. */
export const DEBIAN_PACKAGES = ['chromium', 'ripgrep', 'libkrb5-dev', ...FONT_PACKAGES];

export const CODE_SERVER_VERSION = '4.100.3';

export function toolsDir() {
  return process.env.HOOKBENCH_TOOLS_DIR ?? path.join(os.homedir(), '.cache', 'hookbench', 'tools');
}

export function codeServerDir() {
  return path.join(toolsDir(), `code-server-${CODE_SERVER_VERSION}`, 'node_modules', 'code-server');
}

/**
 * Installs the npm packages when the lockfile changed since the last install, under a lock: two
 * scripts running `npm ci` into one node_modules would corrupt it.
 */
export async function ensureNpmPackages() {
  const lock = fs.readFileSync(path.join(root, 'package-lock.json'));
  const hash = createHash('sha256').update(lock).digest('hex');
  const marker = path.join(root, 'node_modules', '.hookbench-lock-sha256');
  const done = () => fs.existsSync(marker) && fs.readFileSync(marker, 'utf8') === hash;
  if (done()) return;
  await withLock(path.join(toolsDir(), `npm-${createHash('sha256').update(root).digest('hex').slice(0, 12)}.lock`), 'installing npm packages', async () => {
    if (done()) return;
    step('Installing npm packages (npm ci)');
    // Warnings off: pdfjs-dist and a few dev tools declare Node >= 22 (EBADENGINE) yet run on 20.
    await run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: root });
    console.log('  (npm ci: some dev packages declare Node >= 22; they are used in tests and the webview bundle and work on Node 20)');
    fs.writeFileSync(marker, hash);
  });
}

/** @param {string} name */
function debianInstalled(name) {
  try {
    return runQuiet('dpkg-query', ['-W', '-f=${Status}', name]).includes('install ok installed');
  } catch {
    return false;
  }
}

/** Installs missing Debian packages with apt-get when root; otherwise says what to run. */
export async function ensureDebianPackages(packages = DEBIAN_PACKAGES) {
  const missing = packages.filter((p) => !debianInstalled(p));
  if (missing.length === 0) return;
  const command = `apt-get update && apt-get install -y ${missing.join(' ')}`;
  if (process.getuid?.() !== 0) {
    throw new Error(`Hookbench needs the Debian packages ${missing.join(', ')}. Install them as root:\n  ${command}`);
  }
  step(`Installing Debian packages: ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  // Another apt-get (unattended upgrades, the other script) may hold apt's lock: wait for it.
  const wait = ['-o', 'DPkg::Lock::Timeout=900'];
  console.log('  (if another apt-get is running, this waits up to 15 min for its lock)');
  await run('apt-get', [...wait, 'update'], { env });
  await run('apt-get', [...wait, 'install', '-y', '--no-install-recommends', ...missing], { env });
}

/**
 * Prepares code-server without its postinstall (which downloads ripgrep and refuses root):
 * VS Code's production dependencies, its native modules rebuilt against this Node, Debian's rg in
 * place of the downloaded one, and the node_modules.asar link VS Code expects.
 */
export async function ensureCodeServer() {
  const dir = codeServerDir();
  const ready = path.join(dir, '.hookbench-ready');
  if (fs.existsSync(ready)) return dir;
  const installRoot = path.dirname(path.dirname(dir));
  // One script prepares it; another waits. It is built aside and renamed into place, so a run
  // that dies half-way leaves nothing that looks ready.
  await withLock(`${installRoot}.lock`, `preparing code-server ${CODE_SERVER_VERSION}`, async () => {
    if (fs.existsSync(ready)) return;
    const aside = `${installRoot}.tmp-${process.pid}`;
    fs.rmSync(aside, { recursive: true, force: true });
    await prepareCodeServer(aside);
    fs.rmSync(installRoot, { recursive: true, force: true });
    fs.renameSync(aside, installRoot);
  });
  return dir;
}

/** @param {string} installRoot */
async function prepareCodeServer(installRoot) {
  const dir = path.join(installRoot, 'node_modules', 'code-server');
  step(`Preparing code-server ${CODE_SERVER_VERSION} in ${installRoot}`);
  fs.mkdirSync(installRoot, { recursive: true });
  fs.writeFileSync(path.join(installRoot, 'package.json'), '{"name":"hookbench-tools","private":true}\n');
  const npmQuiet = ['--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'];
  await run('npm', ['install', ...npmQuiet, `code-server@${CODE_SERVER_VERSION}`], { cwd: installRoot });

  const vscodeDir = path.join(dir, 'lib', 'vscode');
  await run('npm', ['install', '--omit=dev', ...npmQuiet], { cwd: vscodeDir });
  const native = ['node-pty', '@parcel/watcher', '@vscode/spdlog', 'native-watchdog', '@vscode/deviceid', 'kerberos'];
  await run('npm', ['rebuild', '--loglevel=error', ...native], {
    cwd: vscodeDir,
    env: { ...process.env, npm_config_yes: 'true' },
  });
  const rgDir = path.join(vscodeDir, 'node_modules', '@vscode', 'ripgrep', 'bin');
  fs.mkdirSync(rgDir, { recursive: true });
  fs.rmSync(path.join(rgDir, 'rg'), { force: true });
  fs.symlinkSync('/usr/bin/rg', path.join(rgDir, 'rg'));
  fs.rmSync(path.join(vscodeDir, 'node_modules.asar'), { recursive: true, force: true });
  fs.symlinkSync('node_modules', path.join(vscodeDir, 'node_modules.asar'));
  await run('npm', ['install', '--omit=dev', ...npmQuiet], { cwd: path.join(vscodeDir, 'extensions') });
  await run('npm', ['rebuild', '--loglevel=error', 'argon2'], {
    cwd: installRoot,
    env: { ...process.env, npm_config_yes: 'true' },
  });
  fs.writeFileSync(path.join(dir, '.hookbench-ready'), new Date().toISOString());
}

/** Everything the tests need, in dependency order. */
export async function ensureAll() {
  await ensureDebianPackages();
  await ensureNpmPackages();
  await ensureCodeServer();
}
