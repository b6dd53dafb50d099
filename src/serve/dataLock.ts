/**
 * One serve process per data folder. Two would write the same instances' journals and snapshots,
 * and each one's snapshots would delete journals the other is still appending to. That happens
 * easily: VS Code's receiver and a `hookbench serve` in the terminal both default to the
 * workspace's `.hookbench`. The lock file (src/core/contract/serveLock.ts) names this process so
 * that no other can pass for it: its pid with its start time and uid, a nonce it proves it knows
 * without sending it, and the admin API's address once the receiver listens. A lock that names no
 * live holder (a crash, a SIGKILL, a reboot that gave the pid to another process, a planted file)
 * is taken over; so is one this same process wrote for a server it started and did not stop.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { processIdentity } from '../core/childProcess';
import { folderInUseMessage } from '../core/contract/serveHandshake';
import { formatServeLock, lockAnswer, parseServeLock, type LockConfirmAnswer, type ServeLock } from '../core/contract/serveLock';
import { checkLock, type LockCheckOptions } from '../core/lockHolder';
import { CREATE_NEW, mkdirPrivate, readPrivate, writePrivate } from '../core/privateFiles';

export class DataFolderInUseError extends Error {
  override readonly name = 'DataFolderInUseError';
}

export interface DataLock {
  /** Records where the admin API listens (`host:port`), so that a checker can ask for the proof. */
  listening(admin: string): void;
  /**
   * Takes the address back as the server stops: while it drains and commits it answers no proof,
   * and a checker without /proc must then read "not listening", not "stale" (src/core/lockHolder.ts).
   */
  closing(): void;
  /** The proof that this process wrote the lock, for `POST /__hookbench/lock/confirm`. */
  confirm(challenge: string): LockConfirmAnswer;
  release(): void;
}

/** This process, as the lock names it. */
function thisProcess(): ServeLock {
  const identity = processIdentity(process.pid);
  const uid = process.getuid?.();
  return {
    pid: process.pid,
    ...(identity !== undefined && identity !== 'no-proc' ? { startTime: identity.startTime } : {}),
    ...(uid !== undefined ? { uid } : {}),
    nonce: randomBytes(32).toString('hex'),
  };
}

function isEmpty(file: string): boolean {
  return fs.lstatSync(file, { throwIfNoEntry: false })?.size === 0;
}

/** Takes `file` (inside `dataDir`) for this process, or throws DataFolderInUseError. */
export async function lockDataFolder(dataDir: string, file: string, options: LockCheckOptions = {}): Promise<DataLock> {
  mkdirPrivate(path.dirname(file));
  const lock = thisProcess();
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writePrivate(file, formatServeLock(lock), CREATE_NEW);
      return held(file, lock);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    // An empty file may be one another process created a moment ago and is about to write.
    if (isEmpty(file)) await new Promise((resolve) => setTimeout(resolve, 100));
    const verdict = await checkLock(file, options);
    if (verdict.kind === 'holder' || verdict.kind === 'unconfirmed') throw new DataFolderInUseError(folderInUseMessage(dataDir, verdict.lock.pid, file));
    // Free again, this process's own, or naming no live holder.
    fs.rmSync(file, { force: true });
  }
  throw new DataFolderInUseError(`could not take ${file}: another process keeps creating it`);
}

function held(file: string, lock: ServeLock): DataLock {
  const ours = (): boolean => {
    try {
      return parseServeLock(readPrivate(file).toString('utf8'))?.nonce === lock.nonce;
    } catch {
      return false;
    }
  };
  const rewrite = (value: ServeLock) => {
    if (!ours()) return;
    // Beside it, then renamed over it: a checker never reads half a lock.
    const aside = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    writePrivate(aside, formatServeLock(value), CREATE_NEW);
    fs.renameSync(aside, file);
  };
  return {
    listening: (admin) => rewrite({ ...lock, admin }),
    closing() {
      try {
        rewrite(lock);
      } catch {
        // The address stays: only a checker without /proc could take the folder while this one drains.
      }
    },
    confirm: (challenge) => ({ pid: process.pid, answer: lockAnswer(lock.nonce, challenge) }),
    release() {
      if (ours()) fs.rmSync(file, { force: true });
    },
  };
}
