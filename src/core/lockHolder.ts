/**
 * Who holds a data folder: what a second serve and the extension's Take Over make of `serve.lock`
 * before they call the folder in use or stop its holder (docs/security.md, The data folder's
 * lock). A process is the holder only once it has answered the lock's challenge; nothing else is
 * ever stopped, whatever its pid or its arguments.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import * as http from 'node:http';
import * as os from 'node:os';
import { processIdentity } from './childProcess';
import { ADMIN_API } from './contract/admin';
import { routePath } from './contract/adminRoute';
import { lockAnswer, parseLockConfirmAnswer, parseServeLock, type ServeLock } from './contract/serveLock';
import { readPrivate } from './privateFiles';

export type LockVerdict =
  /** No lock: the folder is free. */
  | { readonly kind: 'free' }
  /** The process the lock names answered its challenge. */
  | { readonly kind: 'holder'; readonly lock: ServeLock }
  /** This process wrote it: a server it started and did not stop. */
  | { readonly kind: 'own'; readonly lock: ServeLock }
  /** It may be the holder (its pid and start time match, or it is still starting), but did not prove it. */
  | { readonly kind: 'unconfirmed'; readonly lock: ServeLock; readonly reason: string }
  /** It names no live holder: the process is gone, is another one, or never wrote this lock. */
  | { readonly kind: 'stale'; readonly pid?: number; readonly reason: string };

export interface LockCheckOptions {
  /** How long the holder has to answer (default 5 s). */
  readonly timeoutMs?: number;
}

/** The largest answer read: a proof is about a hundred bytes. */
const MAX_ANSWER = 4096;

/**
 * Asks the holder's `POST /__hookbench/lock/confirm` (the route `lockConfirm` of the admin API)
 * with node:http (fetch refuses the ports of its "bad ports" list, 6000 among them, which a
 * receiver may use); the status and the parsed body, undefined when not JSON.
 */
function askLock(admin: string, challenge: string, timeoutMs: number): Promise<{ status: number; body: unknown }> {
  const route = ADMIN_API.lockConfirm;
  return new Promise((resolve, reject) => {
    const request = http.request(
      `http://${admin}${routePath(route, {})}`,
      { method: route.method, headers: { 'content-type': 'application/json' }, timeout: timeoutMs },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_ANSWER) return void request.destroy(Object.assign(new Error('the answer is too long'), { code: 'E2BIG' }));
          chunks.push(chunk);
        });
        response.on('end', () => {
          let body: unknown;
          try {
            body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch {
            body = undefined;
          }
          resolve({ status: response.statusCode ?? 0, body });
        });
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })));
    request.on('error', reject);
    request.end(route.body.format({ challenge }));
  });
}

/** Whether a signal could reach `pid`: EPERM means it runs, as another user. */
function probe(pid: number): 'running' | 'gone' | 'other-user' {
  try {
    process.kill(pid, 0);
    return 'running';
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? 'other-user' : 'gone';
  }
}

/** Loopback, or an address of one of this machine's interfaces: nowhere else can the holder be. */
function isOwnAddress(host: string): boolean {
  if (/^127\./.test(host) || host === '::1') return true;
  return Object.values(os.networkInterfaces()).some((list) => list?.some((entry) => entry.address === host));
}

const stale = (lock: ServeLock, reason: string): LockVerdict => ({ kind: 'stale', pid: lock.pid, reason });

/** The lock in `file` and what it names now. */
export async function checkLock(file: string, options: LockCheckOptions = {}): Promise<LockVerdict> {
  let text: string;
  try {
    text = readPrivate(file).toString('utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { kind: 'free' };
    if (code === 'ELOOP') return { kind: 'stale', reason: 'serve.lock is a symbolic link' };
    throw error;
  }
  const lock = parseServeLock(text);
  if (!lock) {
    const bare = /^\s*(\d+)\s*$/.exec(text)?.[1];
    return {
      kind: 'stale',
      ...(bare ? { pid: Number(bare) } : {}),
      reason: bare ? 'the lock holds a bare pid, which proves nothing' : 'the lock is not one serve wrote',
    };
  }
  if (lock.pid === process.pid) return { kind: 'own', lock };
  const uid = process.getuid?.();
  if (lock.uid !== uid) return stale(lock, `the lock was written by ${lock.uid === undefined ? 'no user' : `uid ${lock.uid}`}`);
  const reach = probe(lock.pid);
  if (reach === 'gone') return stale(lock, 'no process has that pid');
  if (reach === 'other-user') return stale(lock, 'that process belongs to another user');
  const identity = processIdentity(lock.pid);
  const proc = identity !== 'no-proc';
  if (identity === undefined) return stale(lock, 'no process has that pid');
  if (identity !== 'no-proc') {
    if (identity.startTime !== lock.startTime) return stale(lock, 'that pid names a process started at another time');
    if (identity.uid !== uid) return stale(lock, 'that process belongs to another user');
  }
  if (lock.admin === undefined) return { kind: 'unconfirmed', lock, reason: 'it is not listening yet' };
  const failure = await confirm(lock, lock.admin, options);
  if (!failure) return { kind: 'holder', lock };
  // With /proc the pid and start time already name the lock's own process, only not proven.
  // Without, the answer is all there is: nothing listening, or a wrong proof, is no holder; a
  // holder too busy to answer, or one that would not (an HTTP error), keeps its folder.
  if (proc || !failure.disproved) return { kind: 'unconfirmed', lock, reason: failure.reason };
  return stale(lock, failure.reason);
}

/**
 * Asks the holder at `admin` for HMAC(nonce, challenge); undefined when it proved it, else why
 * not, `disproved` when what answers (or nothing) cannot be the holder.
 */
async function confirm(lock: ServeLock, admin: string, options: LockCheckOptions): Promise<{ reason: string; disproved?: true } | undefined> {
  const host = admin.slice(0, admin.lastIndexOf(':')).replace(/^\[(.*)\]$/, '$1');
  if (!isOwnAddress(host)) return { reason: `its admin address ${admin} is not this machine's`, disproved: true };
  const challenge = randomBytes(32).toString('hex');
  const timeoutMs = options.timeoutMs ?? 5000;
  let asked: { status: number; body: unknown };
  try {
    asked = await askLock(admin, challenge, timeoutMs);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ETIMEDOUT') return { reason: `${admin} did not answer within ${timeoutMs / 1000} s` };
    return code === 'ECONNREFUSED'
      ? { reason: `nothing answers at ${admin}`, disproved: true }
      : { reason: `${admin} could not be asked (${code ?? (error as Error).message})` };
  }
  const { status, body } = asked;
  const answer = parseLockConfirmAnswer(body);
  if (status !== 200) return { reason: `${admin} answered ${status} without a proof` };
  const proven =
    answer !== undefined &&
    answer.pid === lock.pid &&
    timingSafeEqual(Buffer.from(answer.answer, 'hex'), Buffer.from(lockAnswer(lock.nonce, challenge), 'hex'));
  return proven ? undefined : { reason: `what answers at ${admin} could not prove it wrote the lock`, disproved: true };
}

/**
 * Whether the process that holds `lock` still is the one confirmed: with /proc, its pid still
 * names a process started when the lock says (checked again just before a signal).
 */
export function stillHolds(lock: ServeLock): boolean {
  const identity = processIdentity(lock.pid);
  if (identity === 'no-proc') return probe(lock.pid) === 'running';
  return identity !== undefined && identity.startTime === lock.startTime;
}
