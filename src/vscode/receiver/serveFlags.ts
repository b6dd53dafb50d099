/**
 * The settings turned into `hookbench serve`'s flags: the receiver's own (host, port, data folder,
 * retention, render port, memory budget, security, retries) and the worker it runs — the
 * workspace's own agents worker when the folder is trusted and has one, else the built-in worker.
 * No `vscode` here: the controller hands in the settings and the trust.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_MEMORY_BUDGET_MIB } from '../../core/contract/serveEnvironment';
import { DEFAULT_RECEIVER_PORT } from '../../core/contract/webhookRoutes';
import { UnsupportedConfigError } from '../../core/workerConfig/configErrors';
import { findWranglerConfig, readWranglerConfig } from '../../core/workerConfig/wranglerConfig';

/** What is read of the `hookbench` settings (a `vscode.WorkspaceConfiguration` is one). */
export interface Settings {
  get<T>(section: string, defaultValue: T): T;
}

/** The settings that change serve's flags: a change restarts the running receiver. */
export const RESTART_ON = [
  'hookbench.receiver.host',
  'hookbench.receiver.port',
  'hookbench.receiver.retries',
  'hookbench.receiver.retryScale',
  'hookbench.receiver.memoryBudget',
  'hookbench.dataDirectory',
  'hookbench.worker',
  'hookbench.retention',
  'hookbench.render.port',
];

/** serve's flags for the receiver: the settings', the data folder, then `worker`'s. */
export function serveArgs(settings: Settings, data: string, worker: readonly string[]): string[] {
  return [
    '--host',
    settings.get<string>('receiver.host', '127.0.0.1'),
    '--port',
    String(settings.get<number>('receiver.port', DEFAULT_RECEIVER_PORT)),
    '--data',
    data,
    '--retention-count',
    String(settings.get<number>('retention.maxEvents', 100)),
    '--retention-days',
    String(settings.get<number>('retention.maxAgeDays', 30)),
    '--render-port',
    String(settings.get<number>('render.port', 8788)),
    '--memory-budget',
    String(settings.get<number>('receiver.memoryBudget', DEFAULT_MEMORY_BUDGET_MIB)),
    ...worker,
    ...settings.get<string[]>('security.allowedOrigins', []).flatMap((origin) => ['--allow-origin', origin]),
    ...(settings.get<boolean>('security.requireToken', false) ? ['--require-token'] : []),
    ...(settings.get<boolean>('receiver.retries', false) ? ['--retries', '--retry-scale', String(settings.get<number>('receiver.retryScale', 0.001))] : []),
  ];
}

/** The worker serve runs for a folder and its config (neither: the built-in worker), and why a config was passed over. */
export interface WorkspaceWorker {
  readonly worker?: string;
  readonly config?: string;
  readonly ignored?: string;
}

/**
 * The workspace's own agents worker when `folder` is trusted and has one (a wrangler config with
 * Durable Object bindings, or `worker.entry`); otherwise none, and the built-in worker runs.
 * `settings`: the folder's `hookbench` settings.
 */
export function workspaceWorker(folder: string | undefined, trusted: boolean, settings: () => Settings): WorkspaceWorker {
  if (!folder || !trusted) return {};
  const read = settings();
  const entry = read.get<string>('worker.entry', '');
  const configSetting = read.get<string>('worker.config', '');
  const config = configSetting ? path.resolve(folder, configSetting) : findWranglerConfig(folder);
  if (entry) return { worker: path.resolve(folder, entry), ...(config ? { config } : {}) };
  if (!config || !fs.existsSync(config)) return {};
  try {
    const parsed = readWranglerConfig(config);
    if (parsed.main && parsed.durableObjects.length > 0) return { config, worker: parsed.main };
  } catch (error) {
    // A config that asks for what Hookbench does not emulate: serve reads it again and fails
    // at start with its one line, rather than the built-in worker running in its place.
    if (error instanceof UnsupportedConfigError) return { config };
    return { ignored: `ignoring ${config}: ${(error as Error).message}` };
  }
  return {};
}

/** serve's flags for `worker`, and its config. */
export function workerFlags({ worker, config }: WorkspaceWorker): { flags: string[]; config?: string } {
  return { flags: [...(config ? ['--config', config] : []), ...(worker ? ['--worker', worker] : [])], ...(config ? { config } : {}) };
}
