/**
 * The agent, connection and request of the code running now (`getCurrentAgent()` of the SDK),
 * carried across awaits by AsyncLocalStorage.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Connection } from './connection';

export interface AgentContext {
  readonly agent: unknown;
  readonly connection: Connection | undefined;
  readonly request: Request | undefined;
}

const storage = new AsyncLocalStorage<AgentContext>();

export function runInAgentContext<T>(context: AgentContext, fn: () => T): T {
  return storage.run(context, fn);
}

export function getCurrentAgent<T = unknown>(): { agent: T | undefined; connection: Connection | undefined; request: Request | undefined } {
  const current = storage.getStore();
  return { agent: current?.agent as T | undefined, connection: current?.connection, request: current?.request };
}
