/** Base class of a Workflow (`run(event, step)`), bound by `workflows` in the wrangler config; `cloudflare:workers` exports it. */
export class WorkflowEntrypoint<Env = unknown, Params = unknown> {
  constructor(
    readonly ctx: { waitUntil(promise: Promise<unknown>): void },
    readonly env: Env,
  ) {}

  run(_event: { payload: Params; timestamp: Date; instanceId: string }, _step: unknown): unknown {
    throw new Error('a WorkflowEntrypoint must implement run(event, step)');
  }
}
