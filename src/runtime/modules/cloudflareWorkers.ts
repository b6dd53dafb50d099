// What `import … from 'cloudflare:workers'` gives a worker bundled by Hookbench.
import { DurableObject, type DurableObjectState } from '../objects/durableObject';

export { DurableObject };

/** Base class of a worker's entrypoint class (`export default class extends WorkerEntrypoint`). */
export class WorkerEntrypoint<Env = unknown> {
  constructor(
    readonly ctx: { waitUntil(promise: Promise<unknown>): void; passThroughOnException(): void },
    readonly env: Env,
  ) {}
}

export { WorkflowEntrypoint } from '../bindings/workflows/workflowEntrypoint';

/** Marks objects that may cross an RPC boundary; nothing to do in one process. */
export class RpcTarget {}

export type { DurableObjectState };

/** The worker's `env`, filled in by the runtime before the worker's code runs. */
export const env: Record<string, unknown> = {};
