/**
 * `hookbench serve`: the receiver in front of a worker on the Agents SDK emulation. Prints
 * `listening on http://HOST:PORT`; SIGTERM/SIGINT stop accepting, drain, commit and snapshot
 * every instance, and exit 0.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { lineLogger, type Logger } from '../core/log';
import { findWranglerConfig, parseDevVars, readWranglerConfig, secretsFileBeside, type WranglerConfig } from '../core/workerConfig/wranglerConfig';
import { ConfigError, UnsupportedConfigError } from '../core/workerConfig/configErrors';
import { defaultWorkerConfig, prebuiltDefaultWorker, type DefaultWorkerSettings } from '../serve/defaultWorker';
import { PROVIDERS, schemeFor } from '../core/signing';
import type { AccessPolicy } from '../serve/net/access';
import { startServe } from '../serve/startServe';
import { DEFAULT_RECEIVER_PORT, WEBHOOK_PATHS } from '../core/contract/webhookRoutes';
import { parseFlags, UsageError } from './args';
import type { CliIo } from './io';
import { listeningLine, loginFileLine, portInUseMessage, protocolLine, renderLine, renderTokenLine } from '../core/contract/serveHandshake';
import { ADMIN_PROTOCOL_VERSION } from '../core/contract/adminProtocol';
import { ADMIN_TOKEN_ENV, DEFAULT_MEMORY_BUDGET_MIB, RENDER_TOKEN_ENV } from '../core/contract/serveEnvironment';

export const serveUsage = `Usage: hookbench serve [--host 127.0.0.1] [--port ${DEFAULT_RECEIVER_PORT}] [--data .hookbench]
         [--worker FILE] [--config wrangler.jsonc|toml] [--env-file .dev.vars] [--no-watch] [--test-scheduled]
         [--retention-count N] [--retention-days D] [--public-url URL]
         [--outbound-url URL] [--chat-url URL] [--admin-token T] [--exit-with-parent]
         [--render-port 8788] [--no-render] [--render-rate 30] [--render-concurrency 4]
         [--secret-env NAME]... [--allow-origin ORIGIN]... [--allow-host HOST]... [--webhook-path /PREFIX/]...
         [--require-token] [--retries [--retry-scale 0.001]] [--idle-ms 60000] [--memory-budget ${DEFAULT_MEMORY_BUDGET_MIB}]
  Runs a worker on the Agents SDK emulation: yours with --worker (its Durable Object bindings and
  vars from the wrangler config next to it or given with --config), otherwise the built-in
  webhook worker. The worker's secrets come from --env-file (default: the .dev.vars or .env beside
  the wrangler config, as wrangler dev reads them) and, from the environment, only the
  providers' webhook secrets (GITHUB_WEBHOOK_SECRET, STRIPE_WEBHOOK_SECRET, …) and the variables
  named with --secret-env: other credentials in your environment never reach worker code.
  Browsers reach the agents routes, WebSockets, admin API and render emulator only from loopback
  and VS Code origins; --allow-origin and --allow-host open them to others. Webhook routes
  (/webhooks/, /webhooks-queued/ and each --webhook-path) are open to every origin.
  The admin token comes from HOOKBENCH_ADMIN_TOKEN (--admin-token shows it to every user in ps),
  or is made up; either way it is kept in DATA/_hookbench/admin-token (yours only), where VS Code
  finds it to show this serve's instances and deliveries instead of starting its own.
  Another user of this machine reaches only the webhook routes (on Linux, where serve can tell
  who opened a loopback connection). On a shared macOS or Windows machine, --require-token asks
  every other route for the admin token (header X-Hookbench-Token, query hookbench_token, or the
  browser session set by the login URL serve writes to DATA/_hookbench/login).
  --port 0 picks a free port. Prints "listening on http://HOST:PORT".
  The Browser Rendering emulator (Chromium starts on the first render) listens on --render-port
  and prints "render on http://HOST:PORT/client/v4"; its Bearer token is HOOKBENCH_RENDER_TOKEN,
  or a random one, printed. --render-rate is requests a second before 429 (0: no limit).
  --retries: a delivery from hookbench send, replay, a relay or a public URL (not your own curl)
  answered 5xx or later than its provider waits is sent again on the provider's retry schedule,
  re-signed, with its retry headers; --retry-scale compresses the schedule (0.001: an hour is 3.6 s).
  An instance is put to sleep after --idle-ms quiet, and sooner, least recently used first, when
  the awake instances hold more than --memory-budget MiB (0: no budget); a request wakes it again.`;

/** The receiver's port is taken; the message names the flag that picks another. */
export class PortInUseError extends Error {
  constructor(host: string, port: string) {
    super(portInUseMessage(host, port));
  }
}

/** What the worker may read from the environment without being asked: the webhook secrets Hookbench itself names. */
export const KNOWN_SECRET_NAMES: readonly string[] = [...PROVIDERS.map((p) => schemeFor(p).shape.secretEnv), 'OUTBOUND_WEBHOOK_SECRET'];

/**
 * The worker's secrets: the known webhook secrets and the `--secret-env` names from the
 * environment, then the env file. Cloud credentials, GITHUB_TOKEN and Hookbench's own tokens
 * stay out of worker code unless named (wrangler dev, too, reads only .dev.vars by default).
 */
export function secretsFrom(envFile: string | undefined, env: NodeJS.ProcessEnv, named: readonly string[]): Record<string, string> {
  const secrets: Record<string, string> = {};
  for (const key of [...KNOWN_SECRET_NAMES, ...named]) {
    const value = env[key];
    if (value !== undefined && value !== '') secrets[key] = value;
  }
  if (envFile) {
    let text: string;
    try {
      text = fs.readFileSync(envFile, 'utf8');
    } catch (error) {
      throw new UsageError(`cannot read --env-file ${envFile}: ${(error as Error).message}`);
    }
    Object.assign(secrets, parseDevVars(text));
  }
  return secrets;
}

function optionalNumber(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isFinite(n) || n < 0) throw new UsageError(`${flag} is a number, 0 or more`);
  return n;
}

/** `--retry-scale`: how much a provider's schedule is compressed, from 0 (at once) to 1 (real time). */
function retryScale(text: string | undefined): number {
  const scale = optionalNumber(text, '--retry-scale') ?? 0.001;
  if (scale > 1) throw new UsageError('--retry-scale is from 0 to 1 (0.001: an hour is 3.6 s)');
  return scale;
}

function port(text: string, flag: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new UsageError(`${flag} is a number from 0 to 65535`);
  return n;
}

/** The origin and host check's exceptions, from the flags; each one checked here, not at the first request. */
function accessPolicy(origins: string[], hosts: string[], paths: string[]): AccessPolicy {
  for (const origin of origins) {
    if (!/^[a-z][a-z0-9+.-]*:\/\/[^/]+$/i.test(origin))
      throw new UsageError(`--allow-origin ${origin}: give scheme://host[:port], as a browser sends it in Origin`);
  }
  for (const host of hosts) {
    if (!/^(?:[\w-]+(?:\.[\w-]+)*|\[[0-9a-f:.]+\])$/i.test(host)) throw new UsageError(`--allow-host ${host}: give a host name without port or scheme`);
  }
  for (const prefix of paths) {
    if (!prefix.startsWith('/') || prefix.startsWith('/__hookbench') || prefix === '/')
      throw new UsageError(`--webhook-path ${prefix}: give a path prefix such as /hooks/ (not / and not /__hookbench/)`);
  }
  return { origins, hosts, openPaths: [...WEBHOOK_PATHS, ...paths] };
}

/** The worker serve runs, as its flags name it: its entry (or the built-in worker's bundle), its config, its secrets file. */
export interface ResolvedWorker {
  readonly entry: string;
  /** The built-in worker's bundle beside the CLI, when running from a build. */
  readonly prebuilt: string | undefined;
  readonly config: WranglerConfig | undefined;
  /** `--env-file`, else the `.dev.vars` (or `.env`) beside the wrangler config, as wrangler dev reads it. */
  readonly envFile: string | undefined;
}

/** `--worker`, `--config` and `--env-file` resolved as `serve` does (also `chaos`); the built-in worker, with `settings`, without either. */
export function resolveWorker(
  values: { worker?: string | undefined; config?: string | undefined; 'env-file'?: string | undefined },
  logger: Logger,
  settings: DefaultWorkerSettings = {},
): ResolvedWorker {
  let config: WranglerConfig | undefined;
  let prebuilt: string | undefined;
  let envFile = values['env-file'];
  try {
    const configFile = values.config ?? (values.worker ? findWranglerConfig(path.dirname(path.resolve(values.worker))) : undefined);
    config = configFile ? readWranglerConfig(path.resolve(configFile)) : undefined;
    // As wrangler dev does: the secrets file beside the config, `.dev.vars` (or else `.env`).
    if (configFile && envFile === undefined) envFile = secretsFileBeside(configFile);
  } catch (error) {
    // Something not emulated is no usage mistake: its one line, without the usage text.
    if (error instanceof UnsupportedConfigError) throw error;
    if (error instanceof ConfigError) throw new UsageError(error.message);
    throw error;
  }
  for (const note of config?.notes ?? []) logger.warn(`[agents] ${note}`);
  let entry = values.worker ? path.resolve(values.worker) : config?.main;
  if (!entry) {
    // No worker of the user's: the built-in webhook worker.
    config = defaultWorkerConfig(settings);
    prebuilt = prebuiltDefaultWorker();
    entry = prebuilt ?? path.resolve(__dirname, '..', '..', 'workers', 'default', 'index.ts');
  }
  if (!fs.existsSync(entry)) throw new UsageError(`the worker entry ${entry} does not exist`);
  return { entry, prebuilt, config, envFile };
}

export async function serve(argv: string[], io: CliIo): Promise<number> {
  const values = parseFlags(argv, {
    host: { type: 'string', default: '127.0.0.1' },
    port: { type: 'string', default: String(DEFAULT_RECEIVER_PORT) },
    data: { type: 'string', default: '.hookbench' },
    worker: { type: 'string' },
    config: { type: 'string' },
    'env-file': { type: 'string' },
    'no-watch': { type: 'boolean', default: false },
    'test-scheduled': { type: 'boolean', default: false },
    'idle-ms': { type: 'string' },
    'memory-budget': { type: 'string' },
    'retention-count': { type: 'string' },
    'retention-days': { type: 'string' },
    'public-url': { type: 'string' },
    'admin-token': { type: 'string' },
    'outbound-url': { type: 'string' },
    'chat-url': { type: 'string' },
    'exit-with-parent': { type: 'boolean', default: false },
    'render-port': { type: 'string', default: '8788' },
    'no-render': { type: 'boolean', default: false },
    'render-rate': { type: 'string' },
    'render-concurrency': { type: 'string' },
    'secret-env': { type: 'string', multiple: true, default: [] },
    'allow-origin': { type: 'string', multiple: true, default: [] },
    'allow-host': { type: 'string', multiple: true, default: [] },
    'webhook-path': { type: 'string', multiple: true, default: [] },
    'require-token': { type: 'boolean', default: false },
    retries: { type: 'boolean', default: false },
    'retry-scale': { type: 'string' },
  });
  const givenToken = values['admin-token'] ?? io.env[ADMIN_TOKEN_ENV];
  if (values['require-token'] && !givenToken)
    throw new UsageError('--require-token needs an admin token: set HOOKBENCH_ADMIN_TOKEN (for example to the output of openssl rand -hex 16)');
  // Without one given, one made up: kept in the data folder's owner-only admin-token file, where
  // VS Code finds it to attach to this serve (docs/security.md, The data folder's lock).
  const adminToken = givenToken || randomBytes(24).toString('hex');
  const access = {
    ...accessPolicy(values['allow-origin'], values['allow-host'], values['webhook-path']),
    ...(values['require-token'] ? { requireToken: adminToken } : {}),
  };
  const logger = lineLogger((line) => io.stderr.write(line + '\n'), (io.env['HOOKBENCH_LOG_LEVEL'] as 'info' | undefined) ?? 'info');

  const { entry, prebuilt, config, envFile } = resolveWorker(values, logger, {
    retentionCount: optionalNumber(values['retention-count'], '--retention-count'),
    retentionDays: optionalNumber(values['retention-days'], '--retention-days'),
    publicUrl: values['public-url'],
    outboundUrl: values['outbound-url'],
    chatUrl: values['chat-url'],
  });

  const givenRenderToken = io.env[RENDER_TOKEN_ENV];
  const renderToken = givenRenderToken || randomBytes(24).toString('base64url');
  const renderConcurrency = optionalNumber(values['render-concurrency'], '--render-concurrency');
  const running = await startServe({
    host: values.host,
    port: port(values.port, '--port'),
    dataDir: values.data,
    worker: {
      entry,
      prebuilt,
      config,
      secrets: secretsFrom(envFile, io.env, values['secret-env']),
      watch: !values['no-watch'],
      testScheduled: values['test-scheduled'],
    },
    logger,
    adminToken,
    sinkSecret: io.env['HOOKBENCH_SINK_SECRET'],
    access,
    limits: {
      idleMs: values['idle-ms'] === undefined ? undefined : Number(values['idle-ms']),
      memoryBudgetMiB: optionalNumber(values['memory-budget'], '--memory-budget') ?? DEFAULT_MEMORY_BUDGET_MIB,
    },
    ...(values.retries ? { retries: { scale: retryScale(values['retry-scale']) } } : {}),
    ...(values['no-render']
      ? {}
      : {
          render: {
            port: port(values['render-port'], '--render-port'),
            token: renderToken,
            ratePerSecond: optionalNumber(values['render-rate'], '--render-rate'),
            ...(renderConcurrency ? { concurrency: renderConcurrency } : {}),
          },
        }),
  }).catch((error: NodeJS.ErrnoException) => {
    // One line that says what to do, instead of a listen() stack.
    if (error.code === 'EADDRINUSE') throw new PortInUseError(values.host, values.port);
    throw error;
  });
  io.stdout.write(`${protocolLine(ADMIN_PROTOCOL_VERSION)}\n`);
  // The emulator's lines come first: whoever waits for "listening on" then knows both.
  if (running.renderUrl) {
    io.stdout.write(`${renderLine(running.renderUrl)}\n`);
    if (!givenRenderToken) io.stdout.write(`${renderTokenLine(renderToken)}\n`);
  }
  // Listening for the signals before the line that tells a waiting client it may send them.
  const stopped = new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
    // The extension keeps a pipe on stdin and never writes to it: it closes when the extension
    // host goes away, however it goes (a killed code-server, a crash), and the server follows.
    if (values['exit-with-parent']) {
      process.stdin.once('end', stop);
      process.stdin.once('close', stop);
      process.stdin.resume();
    }
  });
  if (running.loginFile) io.stdout.write(`${loginFileLine(running.loginFile)}\n`);
  io.stdout.write(`${listeningLine(running.url)}\n`);

  process.on('unhandledRejection', (reason) => logger.error(`[agents] unhandled rejection in worker code: ${(reason as Error)?.stack ?? String(reason)}`));
  process.on('uncaughtException', (error) => logger.error(`[agents] uncaught exception in worker code: ${error.stack ?? String(error)}`));

  await stopped;
  logger.info('[receiver] stopping: draining requests and committing every instance');
  // Whatever happens while stopping (a data folder deleted under us, a stuck connection), the
  // process ends: after the grace period, or as soon as the shutdown finished or failed.
  const deadline = setTimeout(() => {
    logger.error('[receiver] shutdown took longer than 20 s; exiting anyway');
    process.exit(1);
  }, 20_000);
  try {
    await running.stop();
    logger.info('[receiver] stopped');
  } catch (error) {
    logger.error(`[receiver] shutdown failed: ${(error as Error)?.stack ?? String(error)}`);
    process.exit(1);
  }
  clearTimeout(deadline);
  // Watchers and the esbuild service must not keep a stopped server alive.
  process.exit(0);
}
