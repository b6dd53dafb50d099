/** The errors of `cloudflare:workflows`: a step that throws NonRetryableError is not retried. */
export class NonRetryableError extends Error {
  constructor(message: string, name = 'NonRetryableError') {
    super(message);
    this.name = name;
  }
}

/** Thrown inside a run that was paused, terminated or restarted: it stops at the next step. */
export class WorkflowAborted extends Error {
  override readonly name = 'WorkflowAborted';
}

/**
 * An error of the Workflows API itself, as the worker sees it after the binding's RPC boundary: a
 * plain `Error` whose message starts `WorkflowError: `, the code in parentheses as miniflare words it.
 */
export class WorkflowError extends Error {
  constructor(message: string) {
    super(`WorkflowError: ${message}`);
  }
}
