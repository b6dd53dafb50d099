/**
 * Chromium and Puppeteer failures as Browser Rendering reports them (docs/render.md, "Errors"
 * §1.4): navigation errors get the 5000–5011 codes, automation timeouts 422 with 6002, a closed
 * target 6001, a crashed page 6000; anything else is 500 with 2000.
 */
import { RenderError } from '../../core/browserRendering/errors';

const NET_CODES: [RegExp, number][] = [
  [/ERR_CERT|ERR_SSL/, 5000],
  [/ERR_ADDRESS_UNREACHABLE|ERR_NETWORK_ACCESS_DENIED|ERR_INTERNET_DISCONNECTED/, 5001],
  [/ERR_ABORTED|ERR_TIMED_OUT|ERR_CONNECTION_TIMED_OUT/, 5002],
  [/ERR_TOO_MANY_REDIRECTS/, 5003],
  [/ERR_HTTP2/, 5004],
  [/ERR_NAME_NOT_RESOLVED|ERR_NAME_RESOLUTION_FAILED/, 5005],
  [/ERR_CONNECTION_CLOSED|ERR_CONNECTION_RESET/, 5006],
  [/ERR_EMPTY_RESPONSE/, 5011],
  [/ERR_CONNECTION_REFUSED/, 5008],
  [/ERR_FILE|ERR_UNSAFE|ERR_INVALID_URL|ERR_BLOCKED_BY_CLIENT|ERR_DISALLOWED_URL_SCHEME/, 5010],
  [/net::ERR_/, 5009],
];

export function renderFailure(error: unknown): RenderError {
  if (error instanceof RenderError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const name = error instanceof Error ? error.name : '';
  for (const [pattern, code] of NET_CODES) if (pattern.test(message)) return new RenderError(422, code, message);
  if (name === 'TimeoutError' || /Navigation timeout|Waiting failed: .* exceeded|timed out/i.test(message)) return new RenderError(422, 6002, message);
  if (name === 'TargetCloseError' || /Target closed|Session closed|Connection closed|detached Frame|browser has disconnected/i.test(message))
    return new RenderError(422, 6001, message);
  if (/Execution context was destroyed/.test(message)) return new RenderError(422, 6000, message);
  if (/Page crashed/.test(message)) return new RenderError(422, 6000, message);
  return new RenderError(500, 2000, `Internal Error: ${message}`);
}

/** Runs `step` and, with bestAttempt, carries on past its failure as Cloudflare does. */
export async function attempt(bestAttempt: boolean, step: () => Promise<unknown>): Promise<void> {
  try {
    await step();
  } catch (error) {
    if (!bestAttempt) throw error;
  }
}

/** Rejects with a 422 once `ms` have passed, unless `work` settles first. */
export async function within<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RenderError(422, 6002, `${what} timed out after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
