/**
 * `@callable(meta?)` marks methods clients may call over the agents protocol. It accepts both the
 * standard (TC39) decorator form the SDK uses and TypeScript's legacy `experimentalDecorators`
 * form, and remembers the method functions themselves, so subclassing and overriding behave.
 */
import type { Connection } from './connection';
import { rpcErrorFrame, rpcResultFrame } from '../../core/contract/agentsProtocol';

export interface CallableMetadata {
  readonly description?: string;
  readonly streaming?: boolean;
}

type Method = (...args: never[]) => unknown;

const callables = new WeakMap<Method, CallableMetadata>();

export function callable(meta: CallableMetadata = {}) {
  // The return type must suit both decorator forms' checks in user code.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return function decorate(target: unknown, context: unknown, descriptor?: PropertyDescriptor): any {
    // Legacy form: (prototype, key, descriptor).
    if (descriptor && typeof descriptor.value === 'function') {
      callables.set(descriptor.value as Method, meta);
      return descriptor;
    }
    // Standard form: (method, context).
    if (typeof target === 'function' && context && typeof context === 'object' && (context as { kind?: string }).kind === 'method') {
      callables.set(target as Method, meta);
      return target;
    }
    throw new TypeError('@callable() decorates methods only');
  };
}

/** @deprecated alias kept by the SDK. */
export const unstable_callable = callable;

export function callableMetadata(method: unknown): CallableMetadata | undefined {
  return typeof method === 'function' ? callables.get(method as Method) : undefined;
}

/** What a streaming callable receives first: chunks, then an end or an error. */
export class StreamingResponse {
  private closed = false;

  constructor(
    private readonly connection: Connection,
    private readonly id: string,
  ) {}

  get isClosed(): boolean {
    return this.closed;
  }

  send(chunk: unknown): void {
    if (this.closed) throw new Error('StreamingResponse is already closed');
    this.connection.send(rpcResultFrame(this.id, chunk, false));
  }

  end(finalChunk?: unknown): void {
    if (this.closed) throw new Error('StreamingResponse is already closed');
    this.closed = true;
    this.connection.send(rpcResultFrame(this.id, finalChunk, true));
  }

  error(message: string): void {
    if (this.closed) throw new Error('StreamingResponse is already closed');
    this.closed = true;
    this.connection.send(rpcErrorFrame(this.id, message));
  }
}
