// @ts-check
// Profiles a VS Code extension host with V8's CPU profiler, from its first statement to its exit
// (or HOOKBENCH_PROFILE_MS), when code-server runs with NODE_OPTIONS="--import <this file>"
// (NODE_OPTIONS refuses --cpu-prof). Writes eh-<pid>.cpuprofile and the extension host's
// performance marks (eh-<pid>.marks.txt, ms since this hook started) into HOOKBENCH_PROFILE_DIR.
// Other processes that load it (code-server itself, the launcher) are left alone.
import * as fs from 'node:fs';
import { Session } from 'node:inspector';
import * as path from 'node:path';

const dir = process.env.HOOKBENCH_PROFILE_DIR;
const isExtensionHost = process.argv.some((a) => a.includes('extensionHost')) || (process.env.VSCODE_ESM_ENTRYPOINT ?? '').includes('extensionHost');
if (dir && isExtensionHost) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: Number(process.env.HOOKBENCH_PROFILE_INTERVAL_US ?? 100) });
  session.post('Profiler.start');
  const started = Date.now();
  let done = false;
  const stop = () => {
    if (done) return;
    done = true;
    session.post('Profiler.stop', (error, result) => {
      if (!error && result) fs.writeFileSync(path.join(dir, `eh-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
    /** @type {{ name: string, startTime: number }[]} */
    const marks = /** @type {any} */ (globalThis).MonacoPerformanceMarks?.getMarks() ?? [];
    fs.writeFileSync(path.join(dir, `eh-${process.pid}.marks.txt`), marks.map((m) => `${m.startTime - started} ${m.name}`).join('\n') + '\n');
  };
  process.once('exit', stop);
  setTimeout(stop, Number(process.env.HOOKBENCH_PROFILE_MS ?? 15_000)).unref();
}
