/**
 * Globals of the worker's code that wait on something outside the instance running them, made to
 * respect that instance's input gate as on workerd (docs/runtime.md, "Concurrency"):
 *
 * - `crypto`: Node's WebCrypto, each `crypto.subtle` operation holding the gate until it
 *   completes. workerd answers WebCrypto on the calling thread, so an `await crypto.subtle.sign(…)`
 *   between reading and writing lets nothing in; Node answers from its thread pool a turn or more
 *   later, which without the hold would let another event in (a lost update workerd never shows).
 * - `setTimeout`, `setInterval`: the callback runs once the gate lets it in, like any event.
 * - `fetch`: the answer comes back through the gate.
 *
 * Outside any instance (the worker's own `fetch` handler) each is Node's own.
 */
import { timingSafeEqual as nodeTimingSafeEqual, webcrypto } from 'node:crypto';
import { callbackThroughCurrentGate, holdCurrentGate, throughCurrentGate } from '../objects/inputGate';

const SUBTLE_METHODS = [
  'encrypt',
  'decrypt',
  'sign',
  'verify',
  'digest',
  'generateKey',
  'deriveKey',
  'deriveBits',
  'importKey',
  'exportKey',
  'wrapKey',
  'unwrapKey',
] as const;

type Subtle = typeof webcrypto.subtle;

function gatedSubtle(): Subtle {
  const subtle = webcrypto.subtle;
  const methods = Object.fromEntries(
    SUBTLE_METHODS.map((name) => {
      const method = subtle[name] as (...args: unknown[]) => Promise<unknown>;
      // Called on Node's own object: its methods refuse any other `this`.
      return [name, (...args: unknown[]) => holdCurrentGate(method.apply(subtle, args))];
    }),
  );
  return Object.freeze(Object.assign(Object.create(Object.getPrototypeOf(subtle) as object) as object, methods, { timingSafeEqual })) as unknown as Subtle;
}

/** The bytes of a `BufferSource` argument, or workerd's TypeError naming the parameter. */
function bufferSource(value: unknown, parameter: number): Uint8Array {
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  throw new TypeError(`Failed to execute 'timingSafeEqual' on 'SubtleCrypto': parameter ${parameter} is not of type 'BufferSource'.`);
}

/**
 * workerd's `crypto.subtle.timingSafeEqual(a, b)` (synchronous, not in WebCrypto): equal byte
 * lengths or a TypeError, then a constant-time comparison (Node's).
 */
function timingSafeEqual(a: unknown, b: unknown): boolean {
  const left = bufferSource(a, 1);
  const right = bufferSource(b, 2);
  if (left.byteLength !== right.byteLength) throw new TypeError('Input buffers must have the same byte length.');
  return nodeTimingSafeEqual(left, right);
}

const crypto = Object.freeze({
  subtle: gatedSubtle(),
  getRandomValues: <T extends ArrayBufferView | null>(array: T): T => webcrypto.getRandomValues(array as never) as T,
  randomUUID: () => webcrypto.randomUUID(),
  CryptoKey: (webcrypto as unknown as { CryptoKey: unknown }).CryptoKey,
});

type Callback = (...args: unknown[]) => unknown;

function gatedTimer(schedule: typeof setTimeout | typeof setInterval) {
  return (callback: Callback, ms?: number, ...args: unknown[]) =>
    typeof callback === 'function' ? schedule(callbackThroughCurrentGate(callback), ms, ...args) : schedule(callback, ms, ...args);
}

/** What the worker's code sees under these names instead of Node's. */
export const GATED_GLOBALS: Readonly<Record<string, unknown>> = Object.freeze({
  crypto,
  setTimeout: gatedTimer(setTimeout),
  setInterval: gatedTimer(setInterval),
  fetch: (...args: Parameters<typeof fetch>) => throughCurrentGate(fetch(...args)),
});
