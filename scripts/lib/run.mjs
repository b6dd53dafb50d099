// @ts-check
// Small process helpers for the set-up, test and start scripts (node builtins only: these run
// before `npm ci` has installed anything).
import { spawn, spawnSync } from 'node:child_process';

/**
 * Runs a command with inherited output and resolves when it exits 0; rejects with its exit code.
 * @param {string} command @param {string[]} args @param {import('node:child_process').SpawnOptions} [options]
 * @returns {Promise<void>}
 */
export function run(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: 'inherit', ...options });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`${command} ${args.join(' ')} exited with ${signal ?? code}`));
    });
  });
}

/**
 * Runs a command quietly; its output is printed only when it fails.
 * @param {string} command @param {string[]} args @param {import('node:child_process').SpawnSyncOptions} [options]
 */
export function runQuiet(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', ...options });
  if (result.status !== 0) {
    process.stderr.write(String(result.stdout ?? '') + String(result.stderr ?? ''));
    throw new Error(`${command} ${args.join(' ')} exited with ${result.status ?? result.signal}`);
  }
  return String(result.stdout ?? '');
}

/** @param {string} message */
export function step(message) {
  process.stdout.write(`\n▶ ${message}\n`);
}
