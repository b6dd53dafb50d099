/**
 * What serve says about the user's worker beyond its log text: whether the last build loaded or
 * failed (and where), and each uncaught exception of a handler with its request. Each is one log
 * line on serve's standard error, `[worker] status {…}` / `[worker] exception {…}`, declared once
 * here: its format for serve, its parse for the extension (Problems view, status bar,
 * notifications; docs/runtime.md, "Errors and stack traces").
 */

/** A place in the user's sources: an absolute path, 1-based line and column. */
export interface SourceLocation {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

/** One reason the worker could not be built (esbuild) or loaded (its top level threw, an import Hookbench does not emulate). */
export interface WorkerProblem {
  readonly kind: 'build' | 'load';
  readonly message: string;
  readonly location?: SourceLocation;
}

/**
 * After every build: `ok`, or `failed` with its problems and what serve runs meanwhile — the
 * previous build, or nothing (the first build failed, and serve stops).
 */
export type WorkerStatus =
  { readonly state: 'ok' } | { readonly state: 'failed'; readonly serving: 'previous' | 'none'; readonly problems: readonly WorkerProblem[] };

/**
 * A handler that threw: the request (`POST`, `/webhooks/github`) or, for a handler the platform
 * called, its name and what for (`queue()`, the queue; `alarm()`, `BINDING/name`; `scheduled()`,
 * the cron), the error's first line, and where the user's code threw.
 */
export interface WorkerException {
  readonly method: string;
  readonly path: string;
  readonly message: string;
  readonly location?: SourceLocation;
}

const STATUS_PREFIX = '[worker] status ';
const EXCEPTION_PREFIX = '[worker] exception ';

/** The log message that reports `status`. */
export const workerStatusMessage = (status: WorkerStatus): string => STATUS_PREFIX + JSON.stringify(status);

/** The log message that reports `exception`. */
export const workerExceptionMessage = (exception: WorkerException): string => EXCEPTION_PREFIX + JSON.stringify(exception);

/** The status, when `message` (a log line's message) reports one. */
export function parseWorkerStatus(message: string): WorkerStatus | undefined {
  const value = jsonAfter(message, STATUS_PREFIX) as Partial<{ state: unknown; serving: unknown; problems: unknown }> | undefined;
  if (value?.state === 'ok') return { state: 'ok' };
  if (value?.state !== 'failed' || (value.serving !== 'previous' && value.serving !== 'none') || !Array.isArray(value.problems)) return undefined;
  const problems = value.problems.map(parseProblem);
  return problems.every((p) => p !== undefined) ? { state: 'failed', serving: value.serving, problems: problems as WorkerProblem[] } : undefined;
}

/** The exception, when `message` (a log line's message) reports one. */
export function parseWorkerException(message: string): WorkerException | undefined {
  const value = jsonAfter(message, EXCEPTION_PREFIX) as Partial<Record<keyof WorkerException, unknown>> | undefined;
  if (!value || typeof value.method !== 'string' || typeof value.path !== 'string' || typeof value.message !== 'string') return undefined;
  const location = parseLocation(value.location);
  if (location === null) return undefined;
  return { method: value.method, path: value.path, message: value.message, ...(location ? { location } : {}) };
}

function parseProblem(raw: unknown): WorkerProblem | undefined {
  const value = raw as Partial<Record<keyof WorkerProblem, unknown>> | null;
  if (!value || (value.kind !== 'build' && value.kind !== 'load') || typeof value.message !== 'string') return undefined;
  const location = parseLocation(value.location);
  if (location === null) return undefined;
  return { kind: value.kind, message: value.message, ...(location ? { location } : {}) };
}

/** The location, `undefined` when absent, `null` when malformed. */
function parseLocation(raw: unknown): SourceLocation | undefined | null {
  if (raw === undefined) return undefined;
  const value = raw as Partial<Record<keyof SourceLocation, unknown>> | null;
  if (!value || typeof value.file !== 'string' || !positive(value.line) || !positive(value.column)) return null;
  return { file: value.file, line: value.line, column: value.column };
}

const positive = (value: unknown): value is number => Number.isInteger(value) && (value as number) > 0;

function jsonAfter(message: string, prefix: string): unknown {
  if (!message.startsWith(prefix)) return undefined;
  try {
    return JSON.parse(message.slice(prefix.length)) as unknown;
  } catch {
    return undefined;
  }
}
