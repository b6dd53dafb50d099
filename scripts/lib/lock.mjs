// @ts-check
// A lock between the project's scripts (`npm start` and `npm test` may run at once): a folder
// created atomically, holding the owner's pid; a lock whose owner is gone is taken over.
import * as fs from 'node:fs';
import * as path from 'node:path';

/** @param {number} pid */
function running(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return /** @type {NodeJS.ErrnoException} */ (error).code === 'EPERM';
  }
}

/** @param {string} lock */
function owner(lock) {
  try {
    return Number(fs.readFileSync(path.join(lock, 'pid'), 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Runs `fn` holding `lock` (a folder path). Waits, saying so once, while another live process
 * holds it; takes it over from a process that died holding it.
 * @template T
 * @param {string} lock @param {string} what @param {() => Promise<T>} fn
 * @returns {Promise<T>}
 */
export async function withLock(lock, what, fn) {
  fs.mkdirSync(path.dirname(lock), { recursive: true });
  let told = false;
  for (;;) {
    try {
      fs.mkdirSync(lock);
      fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
      break;
    } catch (error) {
      if (/** @type {NodeJS.ErrnoException} */ (error).code !== 'EEXIST') throw error;
    }
    const pid = owner(lock);
    if (pid !== undefined && !Number.isNaN(pid) && !running(pid)) {
      fs.rmSync(lock, { recursive: true, force: true });
      continue;
    }
    if (!told) {
      process.stdout.write(`… waiting for another Hookbench script (pid ${pid ?? '?'}) to finish ${what}\n`);
      told = true;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}
