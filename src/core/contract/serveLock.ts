/**
 * `serve.lock`, the data folder's lock (docs/security.md, The data folder's lock): who holds the
 * folder, and how a checker asks it to prove so, declared once for the serve process that writes
 * the lock and answers, and for whoever reads it (a second serve, the extension's Take Over).
 *
 * A pid alone names whatever process has that number now: after a crash or a reboot, or in a
 * planted file, an unrelated one. So the lock records the pid with its start time (Linux: the two
 * name one process for the machine's uptime), the owner's uid, a random nonce, and the admin
 * API's address once the receiver listens. The holder proves it wrote the lock by answering a
 * checker's random challenge with HMAC(nonce, challenge): the nonce itself never leaves the file,
 * which only its owner can read (0600, in a 0700 folder).
 */
import { internalPath } from './dataFolder';
import { ShapeError, type Reader } from './shape';
import { createHmac } from 'node:crypto';

/** The lock's file, in the data folder's internal folder. */
export const serveLockFile = (dataDir: string): string => internalPath(dataDir, 'serve.lock');

export interface ServeLock {
  /** The holder's process id. */
  readonly pid: number;
  /** Its start time, `/proc/<pid>/stat` field 22 (clock ticks after boot); absent without /proc. */
  readonly startTime?: string;
  /** The holder's user id; absent where there are none (Windows). */
  readonly uid?: number;
  /** 32 random bytes, hex: the key of the holder's answers, never sent. */
  readonly nonce: string;
  /** `host:port` of the admin API (an IP literal, IPv6 in brackets), once the receiver listens. */
  readonly admin?: string;
}

const FORMAT = 'hookbench serve.lock 1';
const HEX64 = /^[0-9a-f]{64}$/;
const ADDRESS = /^(?:\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-fA-F:.]+\]):\d{1,5}$/;

/** The file's text: one JSON line. */
export function formatServeLock(lock: ServeLock): string {
  return `${JSON.stringify({ format: FORMAT, ...lock })}\n`;
}

const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/**
 * The lock `text` holds, or undefined for anything else: an earlier version's bare pid, a file
 * being written, a planted file of another shape.
 */
export function parseServeLock(text: string): ServeLock | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return undefined;
  const { format, pid, startTime, uid, nonce, admin } = json as Record<string, unknown>;
  if (format !== FORMAT || !isCount(pid) || pid === 0 || typeof nonce !== 'string' || !HEX64.test(nonce)) return undefined;
  if (startTime !== undefined && (typeof startTime !== 'string' || !/^\d{1,20}$/.test(startTime))) return undefined;
  if (uid !== undefined && !isCount(uid)) return undefined;
  if (admin !== undefined && (typeof admin !== 'string' || !ADDRESS.test(admin))) return undefined;
  return { pid, nonce, ...(startTime !== undefined ? { startTime } : {}), ...(uid !== undefined ? { uid } : {}), ...(admin !== undefined ? { admin } : {}) };
}

/**
 * The body of `POST /__hookbench/lock/confirm` (the route `lockConfirm` of admin.ts, open without
 * the admin token, as only the nonce's owner can check its answer): 32 random bytes, hex, fresh
 * for each check.
 */
export interface LockConfirmRequest {
  readonly challenge: string;
}

/** Its answer: the holder's pid and HMAC-SHA256(nonce, challenge), hex. */
export interface LockConfirmAnswer {
  readonly pid: number;
  readonly answer: string;
}

/** The answer to `challenge` from the holder of `nonce`; the label keeps it from meaning anything else. */
export function lockAnswer(nonce: string, challenge: string): string {
  return createHmac('sha256', Buffer.from(nonce, 'hex')).update(`hookbench serve.lock confirm\0${challenge}`).digest('hex');
}

/** The request's challenge, or undefined when the body is not a LockConfirmRequest. */
export function parseLockConfirmRequest(body: unknown): LockConfirmRequest | undefined {
  const challenge = (body as { challenge?: unknown } | null)?.challenge;
  return typeof challenge === 'string' && HEX64.test(challenge) ? { challenge } : undefined;
}

/** The answer, or undefined when the body is not a LockConfirmAnswer. */
export function parseLockConfirmAnswer(body: unknown): LockConfirmAnswer | undefined {
  const { pid, answer } = (body ?? {}) as { pid?: unknown; answer?: unknown };
  return isCount(pid) && typeof answer === 'string' && HEX64.test(answer) ? { pid, answer } : undefined;
}

/** The answer as the route's reader (admin.ts) gives it: a ShapeError when it is not a LockConfirmAnswer. */
export const readLockConfirmAnswer: Reader<LockConfirmAnswer> = (value) => {
  const answer = parseLockConfirmAnswer(value);
  if (!answer) throw new ShapeError('{"pid": <whole number>, "answer": "<64 hex digits>"}', value);
  return answer;
};
