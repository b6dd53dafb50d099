/**
 * A Cloudflare quick tunnel: `cloudflared tunnel --url <receiver>` asks trycloudflare.com for a
 * random `https://<words>.trycloudflare.com` host, prints it in a box on standard error, then
 * registers a connection to Cloudflare's edge; only then do requests flow. The public `Host` is
 * passed on unchanged (no `--http-host-header`), which is what keeps public requests to the
 * receiver's webhook routes (docs/expose.md, Security).
 */
import type { Logger } from '../log';
import { findOnPath, startBinary, type RunningBinary, type Spawn } from './binary';
import { ExposeError } from './errors';

export const CLOUDFLARED_MISSING =
  'cloudflared is not on the PATH: install it (https://developers.cloudflare.com/cloudflare-one/connections/connect-networks/downloads/), or use hookbench expose smee, which needs nothing installed';

/** The arguments of a quick tunnel to `to`. */
export function cloudflaredArgs(to: string): string[] {
  return ['tunnel', '--no-autoupdate', '--url', to];
}

/** The quick tunnel's URL from the box line `INF |  https://<words>.trycloudflare.com   |`. */
export function quickTunnelUrl(line: string): string | undefined {
  return /\|\s+(https:\/\/[a-z0-9-]+\.trycloudflare\.com)\s+\|/.exec(line)?.[1];
}

/** Whether the line says a connection to the edge is up: `INF Registered tunnel connection connIndex=0 …`. */
export const isRegistered = (line: string): boolean => /\bRegistered tunnel connection\b/.test(line);

/** The one line that says why cloudflared ended without a tunnel. */
export function explainCloudflared(lines: readonly string[], exit: string): string {
  const errors = lines.filter((line) => /\s(ERR|FTL)\s/.test(line) || /^failed to/i.test(line));
  const last = (errors.at(-1) ?? lines.filter((l) => l.trim() !== '').at(-1) ?? '').replace(/^\S+\s+(ERR|FTL|INF|WRN)\s+/, '');
  if (/quick Tunnel/i.test(last))
    return `cloudflared could not get a quick tunnel from trycloudflare.com (${last}): check the network, or try hookbench expose smee`;
  return `cloudflared exited (${exit})${last ? `: ${last}` : ''}`;
}

export interface CloudflaredOptions {
  readonly to: string;
  readonly env: NodeJS.ProcessEnv;
  readonly logger: Logger;
  readonly spawn?: Spawn;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/** Starts a quick tunnel; resolves with its public URL once a connection is registered. */
export function startCloudflared(options: CloudflaredOptions): Promise<RunningBinary<string>> {
  const file = findOnPath('cloudflared', options.env);
  if (!file) return Promise.reject(new ExposeError(CLOUDFLARED_MISSING, 'missing-binary'));
  let url: string | undefined;
  // Until it is ready, what it prints is in the log at debug level only: a failure is explained in one line.
  let ready = false;
  const log = (line: string) => {
    if (line.trim() === '') return;
    if (!ready) options.logger.debug(`[cloudflared] ${line}`);
    else if (/\s(ERR|FTL)\s/.test(line)) options.logger.error(`[cloudflared] ${line}`);
    else if (/\sWRN\s/.test(line)) options.logger.warn(`[cloudflared] ${line}`);
    else options.logger.debug(`[cloudflared] ${line}`);
  };
  return startBinary({
    file,
    args: cloudflaredArgs(options.to),
    env: options.env,
    logger: options.logger,
    spawn: options.spawn,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
    ready: (line) => {
      log(line);
      url ??= quickTunnelUrl(line);
      ready = Boolean(url && isRegistered(line));
      return ready ? url : undefined;
    },
    explain: explainCloudflared,
    onLine: log,
  }).catch((error: unknown) => {
    if (error instanceof ExposeError && error.code === 'missing-binary') throw new ExposeError(CLOUDFLARED_MISSING, 'missing-binary');
    throw error;
  });
}
