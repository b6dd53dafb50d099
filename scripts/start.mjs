// @ts-check
// `npm start`: build, prepare code-server when missing, and serve a real VS Code on 127.0.0.1 with
// Hookbench loaded in development mode on the sample workspace. Ctrl-C stops everything.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startCodeServer, workbenchUrl } from './lib/codeServer.mjs';
import { run, step } from './lib/run.mjs';
import { ensureDebianPackages, ensureNpmPackages, ensureVscode, root } from './lib/setup.mjs';

const port = Number(process.env.HOOKBENCH_VSCODE_PORT ?? 8080);

await ensureDebianPackages();
await ensureNpmPackages();
// HOOKBENCH_VSCODE=latest serves the newest code-server (on its own Node) instead of the minimum.
const vscode = await ensureVscode(process.env.HOOKBENCH_VSCODE === 'latest' ? 'latest' : 'min');
step('Build');
await run(process.execPath, ['esbuild.js'], { cwd: root });

const stateDir = path.join(os.homedir(), '.cache', 'hookbench', vscode.which === 'min' ? 'vscode-state' : 'vscode-state-latest');
const server = await startCodeServer({
  codeServerDir: vscode.dir,
  node: vscode.node,
  args: vscode.serverArgs,
  stateDir,
  port,
  onLog: (line) => process.stdout.write(`[code-server] ${line}\n`),
}).catch((error) => {
  console.error(`Could not start code-server on 127.0.0.1:${port}: ${error.message}\nSet HOOKBENCH_VSCODE_PORT to use another port.`);
  process.exit(1);
});
const folder = path.join(root, 'sample');
fs.mkdirSync(folder, { recursive: true });
const url = workbenchUrl({ origin: server.origin, port: server.port, folder, extensionPath: root });
step('Hookbench is running in VS Code. Open this URL in your browser:');
console.log(`\n  ${url}\n\nPress Ctrl-C to stop.`);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  console.log('\nStopping…');
  await server.stop();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
