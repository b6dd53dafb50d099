/**
 * The differential suite's comparer: what one step observed in each runtime, and the short list of
 * differences a step's `Compare` cares about. Pure, so a unit test can show it fails when it should.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Compare } from './step';

/** One HTTP answer as the runner saw it (header names lower case, repeated ones joined by ", "). */
export interface HttpObservation {
  readonly kind: 'http';
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** A WebSocket exchange: the upgrade's answer, then the text frames received (or why none came). */
export interface WebSocketObservation {
  readonly kind: 'ws';
  /** 101 when upgraded; otherwise the refusal's status, with its body in `body`. */
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly frames: readonly string[];
  readonly body?: string;
  /** Set when fewer frames than asked came before the runner gave up. */
  readonly error?: string;
}

/** The texts a runtime logged that a log step's pattern matched, in order (or why too few came). */
export interface LogObservation {
  readonly kind: 'log';
  readonly matches: readonly string[];
  readonly error?: string;
}

/** A step that could not be carried out at all (connection refused, timeout). */
export interface FailedObservation {
  readonly kind: 'failed';
  readonly error: string;
}

export type Observation = HttpObservation | WebSocketObservation | LogObservation | FailedObservation;

/**
 * Whether a runtime answered nothing at all within the step's time (`drive.ts` gives up after
 * 15 s): no response to an HTTP request or an upgrade, as opposed to an answer that differs. Any
 * of several answers (a burst) counts.
 */
export function stalled(observed: Observation | readonly Observation[]): boolean {
  const all: readonly Observation[] = Array.isArray(observed) ? observed : [observed as Observation];
  return all.some((one) => one.kind === 'failed' && /no answer in \d+ ms|handshake has timed out/i.test(one.error));
}

/** How much of a value a diff line shows; `HOOKBENCH_DIFFERENTIAL_FULL=1` shows it all. */
const MAX_SHOWN = process.env['HOOKBENCH_DIFFERENTIAL_FULL'] === '1' ? Infinity : 120;

/** A value cut to a readable length for a one-line diff. */
export function shown(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text;
}

/** Where two texts first differ, with a little context from each. */
export function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const from = Math.max(0, i - 20);
  return `at ${i}: oracle ${shown(a.slice(from, i + 40))} ≠ hookbench ${shown(b.slice(from, i + 40))}`;
}

/** Where two JSON values first differ, as a path and both values there: ` at .a[2].b: oracle 1 ≠ hookbench 2`. */
export function jsonDifference(a: unknown, b: unknown, at: string): string {
  const bothObjects = a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b);
  if (bothObjects) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    for (const key of keys) {
      const left = (a as Record<string, unknown>)[key];
      const right = (b as Record<string, unknown>)[key];
      if (!isDeepStrictEqual(left, right)) {
        const step = Array.isArray(a) ? `[${key}]` : `.${key}`;
        if (!(key in a) || !(key in b))
          return ` at ${at}${step}: oracle ${key in a ? shown(left) : '(absent)'} ≠ hookbench ${key in b ? shown(right) : '(absent)'}`;
        return jsonDifference(left, right, at + step);
      }
    }
  }
  return ` at ${at || '(top)'}: oracle ${shown(a)} ≠ hookbench ${shown(b)}`;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function compareBodies(oracle: string, hookbench: string, compare: Compare): string | undefined {
  const mode = compare.body ?? 'text';
  if (mode === 'ignore') return undefined;
  if (mode === 'json') {
    const a = parseJson(oracle);
    const b = parseJson(hookbench);
    if (!a.ok || !b.ok) {
      if (a.ok === b.ok && oracle === hookbench) return undefined;
      return `body is not JSON in ${!a.ok ? 'the oracle' : 'hookbench'}: ${shown(!a.ok ? oracle : hookbench)}`;
    }
    const left = compare.normalize ? compare.normalize(a.value) : a.value;
    const right = compare.normalize ? compare.normalize(b.value) : b.value;
    if (isDeepStrictEqual(left, right)) return undefined;
    const whole = MAX_SHOWN === Infinity ? `\n        oracle:    ${JSON.stringify(left)}\n        hookbench: ${JSON.stringify(right)}` : '';
    return `body${jsonDifference(left, right, '')}${whole}`;
  }
  const left = compare.normalize ? String(compare.normalize(oracle)) : oracle;
  const right = compare.normalize ? String(compare.normalize(hookbench)) : hookbench;
  return left === right ? undefined : `body ${firstDifference(left, right)}`;
}

function compareHeaders(oracle: Readonly<Record<string, string>>, hookbench: Readonly<Record<string, string>>, names: readonly string[]): string[] {
  const out: string[] = [];
  for (const name of names) {
    const key = name.toLowerCase();
    if (oracle[key] !== hookbench[key])
      out.push(`header ${key}: oracle ${shown(oracle[key] ?? '(absent)')} ≠ hookbench ${shown(hookbench[key] ?? '(absent)')}`);
  }
  return out;
}

/** The differences between two HTTP answers that `compare` asks about; empty when they agree. */
export function compareHttp(oracle: Observation, hookbench: Observation, compare: Compare = {}): string[] {
  const failed = compareFailures(oracle, hookbench);
  if (failed) return failed;
  if (oracle.kind !== 'http' || hookbench.kind !== 'http') return [`kinds differ: ${oracle.kind} ≠ ${hookbench.kind}`];
  const out: string[] = [];
  if ((compare.status ?? true) && oracle.status !== hookbench.status) out.push(`status: oracle ${oracle.status} ≠ hookbench ${hookbench.status}`);
  out.push(...compareHeaders(oracle.headers, hookbench.headers, compare.headers ?? []));
  const body = compareBodies(oracle.body, hookbench.body, compare);
  if (body) out.push(body);
  return out;
}

/** The differences between two WebSocket exchanges: the upgrade's status, chosen headers, and the frames. */
export function compareWebSocket(
  oracle: Observation,
  hookbench: Observation,
  options: { readonly handshakeHeaders?: readonly string[]; readonly normalize?: (frame: string) => unknown } = {},
): string[] {
  const failed = compareFailures(oracle, hookbench);
  if (failed) return failed;
  if (oracle.kind !== 'ws' || hookbench.kind !== 'ws') return [`kinds differ: ${oracle.kind} ≠ ${hookbench.kind}`];
  const out: string[] = [];
  if (oracle.status !== hookbench.status) out.push(`upgrade status: oracle ${oracle.status} ≠ hookbench ${hookbench.status}`);
  out.push(...compareHeaders(oracle.headers, hookbench.headers, options.handshakeHeaders ?? []));
  if (oracle.status !== 101 || hookbench.status !== 101) {
    if ((oracle.body ?? '') !== (hookbench.body ?? '')) out.push(`refusal body ${firstDifference(oracle.body ?? '', hookbench.body ?? '')}`);
    return out;
  }
  if (oracle.error !== undefined || hookbench.error !== undefined) {
    if (oracle.error !== hookbench.error) out.push(`frames: oracle ${oracle.error ?? 'complete'}; hookbench ${hookbench.error ?? 'complete'}`);
  }
  const normalize = options.normalize ?? ((frame: string) => frame);
  const count = Math.max(oracle.frames.length, hookbench.frames.length);
  for (let i = 0; i < count; i++) {
    const a = oracle.frames[i] === undefined ? '(none)' : normalize(oracle.frames[i]!);
    const b = hookbench.frames[i] === undefined ? '(none)' : normalize(hookbench.frames[i]!);
    if (!isDeepStrictEqual(a, b)) out.push(`frame ${i}: oracle ${shown(a)} ≠ hookbench ${shown(b)}`);
  }
  return out;
}

/** The differences between two runtimes' logged matches: the count when one fell short, then each text. */
export function compareLog(oracle: Observation, hookbench: Observation): string[] {
  if (oracle.kind !== 'log' || hookbench.kind !== 'log') return [`kinds differ: ${oracle.kind} ≠ ${hookbench.kind}`];
  const out: string[] = [];
  if (oracle.error !== hookbench.error) out.push(`log: oracle ${oracle.error ?? 'complete'}; hookbench ${hookbench.error ?? 'complete'}`);
  const count = Math.max(oracle.matches.length, hookbench.matches.length);
  for (let i = 0; i < count; i++) {
    const [a, b] = [oracle.matches[i] ?? '(none)', hookbench.matches[i] ?? '(none)'];
    if (a !== b) out.push(`log line ${i}: ${firstDifference(a, b)}`);
  }
  return out;
}

/** A step that failed to run in one runtime differs; failing in both is a difference too (nothing was compared). */
function compareFailures(oracle: Observation, hookbench: Observation): string[] | undefined {
  if (oracle.kind !== 'failed' && hookbench.kind !== 'failed') return undefined;
  const describe = (o: Observation) => (o.kind === 'failed' ? `failed (${o.error})` : o.kind === 'log' ? 'logged' : `answered ${o.status}`);
  return [`oracle ${describe(oracle)}; hookbench ${describe(hookbench)}`];
}
