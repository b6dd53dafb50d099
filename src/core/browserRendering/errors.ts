/**
 * A Browser Rendering failure as the REST interface reports it: an HTTP status, Cloudflare's
 * internal code where it has one (docs/render.md, "Errors"), and a message.
 */
export class RenderError extends Error {
  override readonly name = 'RenderError';
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    /** Seconds to wait before retrying (429). */
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

/** The Cloudflare v4 envelope of a failure. */
export function failureEnvelope(error: RenderError): { success: false; errors: { code: number; message: string }[]; messages: []; result: null } {
  return { success: false, errors: [{ code: error.code, message: error.message }], messages: [], result: null };
}

/** The Cloudflare v4 envelope of a JSON result. */
export function successEnvelope<T>(
  result: T,
  meta?: Record<string, unknown>,
): { success: true; errors: []; messages: []; result: T; meta?: Record<string, unknown> } {
  return meta ? { success: true, errors: [], messages: [], result, meta } : { success: true, errors: [], messages: [], result };
}
