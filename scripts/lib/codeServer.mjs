// @ts-check
// Starts code-server on loopback with a private user-data and extensions folder, and builds the
// workbench URL that loads Hookbench in extension development mode (and, for tests, the suite).
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** Quiet workbench defaults: no welcome page, no trust prompt, no telemetry, no update checks. */
const USER_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'security.workspace.trust.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'update.mode': 'none',
  'git.openRepositoryInParentFolders': 'never',
  'remote.autoForwardPorts': false,
};

/**
 * VS Code's remote port scan off. code-server's VS Code runs its extension host as a remote one,
 * and a remote extension host on Linux looks for listening ports every 2 s or more (`ls -l` of
 * every process's descriptors and `ps` in a shell, /proc/net/tcp, every cwd and cmdline),
 * even with remote.autoForwardPorts off, because code-server provides tunnels. Desktop VS Code's
 * local extension host never runs it. Only the explorer-host benchmark turns it off, to read what
 * the host costs without it (docs/performance.md, "The explorer in the extension host": VS Code's
 * port scan).
 */
const NO_PORT_SCAN_SETTINGS = { 'remote.autoForwardPortsSource': 'output' };

/**
 * Workspace trust on, without the prompt: a folder opens in restricted mode, as a freshly cloned
 * repository does for a user who has not trusted it yet.
 */
const RESTRICTED_SETTINGS = {
  'security.workspace.trust.enabled': true,
  'security.workspace.trust.startupPrompt': 'never',
  'security.workspace.trust.banner': 'never',
};

/** @param {string} stateDir */
function stateFolders(stateDir) {
  return { userDataDir: path.join(stateDir, 'user-data'), extensionsDir: path.join(stateDir, 'extensions') };
}

/**
 * Installs a `.vsix` into the extensions folder of `stateDir`, as a user does
 * (`code-server --install-extension`), and resolves with the installed extension's folder.
 * @param {{ codeServerDir: string, node?: string, stateDir: string, vsix: string, id: string }} options
 */
export async function installExtension({ codeServerDir, node = process.execPath, stateDir, vsix, id }) {
  const { userDataDir, extensionsDir } = stateFolders(stateDir);
  fs.mkdirSync(extensionsDir, { recursive: true });
  const child = spawn(
    node,
    [path.join(codeServerDir, 'out', 'node', 'entry.js'), '--user-data-dir', userDataDir, '--extensions-dir', extensionsDir, '--install-extension', vsix],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const code = await new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  });
  const installed = fs.readdirSync(extensionsDir).find((name) => name.toLowerCase().startsWith(`${id.toLowerCase()}-`));
  if (code !== 0 || !installed) throw new Error(`code-server --install-extension ${vsix} exited with ${code}:\n${output}`);
  return path.join(extensionsDir, installed);
}

/**
 * Puts an extension folder into the extensions folder of `stateDir` before code-server starts,
 * which then finds it there as an installed extension (it registers what the folder holds on its
 * first start).
 * @param {string} stateDir @param {string} extensionFolder
 */
export function placeExtensionFolder(stateDir, extensionFolder) {
  const manifest = JSON.parse(fs.readFileSync(path.join(extensionFolder, 'package.json'), 'utf8'));
  const { extensionsDir } = stateFolders(stateDir);
  fs.cpSync(extensionFolder, path.join(extensionsDir, `${manifest.publisher}.${manifest.name}-${manifest.version}`), { recursive: true });
}

/**
 * @param {{ codeServerDir: string, stateDir: string, node?: string, args?: string[], port?: number, env?: NodeJS.ProcessEnv,
 *           onLog?: (line: string) => void, restricted?: boolean, portScan?: boolean }} options
 * @returns {Promise<{ port: number, origin: string, stop: () => Promise<void> }>}
 */
export async function startCodeServer({
  codeServerDir,
  stateDir,
  node = process.execPath,
  args = [],
  port = 0,
  env = {},
  onLog = () => {},
  restricted = false,
  portScan = true,
}) {
  const { userDataDir, extensionsDir } = stateFolders(stateDir);
  fs.mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  fs.mkdirSync(extensionsDir, { recursive: true });
  fs.writeFileSync(
    path.join(userDataDir, 'User', 'settings.json'),
    JSON.stringify({ ...USER_SETTINGS, ...(restricted ? RESTRICTED_SETTINGS : {}), ...(portScan ? {} : NO_PORT_SCAN_SETTINGS) }, null, 2),
  );
  const configFile = path.join(stateDir, 'config.yaml');
  fs.writeFileSync(configFile, 'auth: none\ncert: false\n');

  const child = spawn(
    node,
    [
      path.join(codeServerDir, 'out', 'node', 'entry.js'),
      '--config',
      configFile,
      '--auth',
      'none',
      '--bind-addr',
      `127.0.0.1:${port}`,
      '--disable-telemetry',
      '--disable-update-check',
      ...(restricted ? [] : ['--disable-workspace-trust']),
      '--disable-getting-started-override',
      '--user-data-dir',
      userDataDir,
      '--extensions-dir',
      extensionsDir,
      ...args,
    ],
    { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );

  const actualPort = await new Promise((resolve, reject) => {
    let buffered = '';
    const onData = (/** @type {Buffer} */ chunk) => {
      buffered += chunk.toString('utf8');
      let newline;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        onLog(line);
        const match = /HTTP server listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(line);
        if (match) resolve(Number(match[1]));
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`code-server exited with ${code} before listening`)));
    child.once('error', reject);
  });

  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    port: Number(actualPort),
    origin: `http://127.0.0.1:${actualPort}`,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}

/**
 * The workbench URL that opens `folder` with the extension at `extensionPath` in development mode
 * and, when `testsPath` is given, runs that suite (VS Code then calls `codeAutomationExit`). VS Code
 * runs a suite only beside a development extension; a suite for an installed extension names a
 * harness extension of its own there.
 * @param {{ origin: string, port: number, folder: string, extensionPath: string, testsPath?: string }} o
 */
export function workbenchUrl({ origin, port, folder, extensionPath, testsPath }) {
  const remote = (/** @type {string} */ p) => `vscode-remote://127.0.0.1:${port}${p}`;
  /** @type {[string, string][]} */
  const payload = [['extensionDevelopmentPath', remote(extensionPath)]];
  if (testsPath) payload.push(['extensionTestsPath', remote(testsPath)]);
  const query = new URLSearchParams({ folder, payload: JSON.stringify(payload) });
  return `${origin}/?${query}`;
}
