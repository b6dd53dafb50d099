/**
 * A worker as Cloudflare runs it: its default export's `fetch(request, env, ctx)`, an `env` made
 * of the wrangler config's vars, the secrets, and one namespace per Durable Object binding.
 */
import * as path from 'node:path';
import * as agentsModule from '../modules/agents';
import * as agentWorkflowsModule from '../modules/agentsWorkflows';
import type { BindingsConfig } from '../../core/workerConfig/bindingsConfig';
import { Entrypoints, type ExecutionContext } from '../bindings/entrypoints';
import { WorkerBindings } from '../bindings/workerBindings';
import * as cloudflareWorkers from '../modules/cloudflareWorkers';
import type { DurableObjectClass } from '../objects/instanceHost';
import { UPGRADE, type UpgradeResponse } from '../objects/connections';
import { bindToTransport, WebSocketPair, WebSocketRequestResponsePair, webSocketOf, WorkerResponse } from '../objects/webSocket';
import type { AssetsConfig } from '../../core/workerConfig/wranglerConfig';
import { AssetServer } from './assets';
import { autoRepliesToClose, NEWEST, type Compatibility } from '../../core/workerConfig/compatibility';
import { GATED_GLOBALS } from './gatedGlobals';
import * as cloudflareEmail from '../modules/cloudflareEmail';
import { populatesProcessEnv, processEnvOf, WORKER_NAVIGATOR, workerProcess } from './workerGlobals';
import { encodeName } from '../storage/names';
import { DurableObjectNamespace } from '../objects/namespace';
import { camelCaseToKebabCase } from '../../core/contract/agentsProtocol';
import type { Platform } from '../platform';
import { WorkflowBinding } from '../bindings/workflows/workflowBinding';
import { NonRetryableError } from '../bindings/workflows/workflowErrors';
import type { WorkflowClass } from '../bindings/workflows/workflowRun';
import type { DurableObjectBinding, WorkflowConfig } from '../../core/workerConfig/wranglerConfig';

export interface WorkerRuntimeOptions {
  readonly exports: Record<string, unknown>;
  /** The object the worker's code sees as `env` (also `cloudflare:workers`' `env`); filled in here. */
  readonly env: Record<string, unknown>;
  readonly bindings: readonly DurableObjectBinding[];
  /** `workflows` of the wrangler config. */
  readonly workflows?: readonly WorkflowConfig[];
  readonly vars: Readonly<Record<string, unknown>>;
  /** KV, D1, R2, queues, service bindings and crons from the wrangler config. */
  readonly bindingsConfig?: BindingsConfig;
  /** Answer `/__scheduled?cron=…` by running `scheduled()`, as `wrangler dev --test-scheduled`. */
  readonly testScheduled?: boolean;
  /** Workers Static Assets: served before (or after) the worker, and `env.<binding>`. */
  readonly assets?: AssetsConfig;
  readonly secrets: Readonly<Record<string, string>>;
  /** The config's compatibility date and flags (the newest behaviour when absent). */
  readonly compatibility?: Compatibility;
}

const NO_BINDINGS: BindingsConfig = {
  name: undefined,
  kvNamespaces: [],
  d1Databases: [],
  r2Buckets: [],
  queueProducers: [],
  queueConsumers: [],
  services: [],
  crons: [],
};

export class WorkerRuntime {
  readonly env: Record<string, unknown>;
  readonly namespaces: readonly DurableObjectNamespace[];
  readonly workflows: readonly WorkflowBinding[];
  readonly bindings: WorkerBindings;
  private readonly entrypoints: Entrypoints;
  private started: Promise<void> | undefined;
  private readonly background = new Set<Promise<unknown>>();
  private readonly assets: AssetServer | undefined;
  private readonly autoReplyToClose: boolean;

  constructor(
    private readonly platform: Platform,
    private readonly options: WorkerRuntimeOptions,
  ) {
    const env: Record<string, unknown> = Object.assign(options.env, options.vars, options.secrets);
    this.autoReplyToClose = autoRepliesToClose(options.compatibility ?? NEWEST);
    const namespaces = options.bindings.map((binding) => {
      const cls = options.exports[binding.className];
      if (typeof cls !== 'function') {
        throw new Error(`the worker does not export the class ${binding.className} named by the Durable Object binding ${binding.name}`);
      }
      const dir = path.join(platform.dataDir, encodeName(camelCaseToKebabCase(binding.name)));
      return new DurableObjectNamespace(platform, binding.name, binding.className, cls as DurableObjectClass, () => env, dir);
    });
    for (const namespace of namespaces) env[namespace.binding] = namespace;
    this.workflows = (options.workflows ?? []).map((workflow) => {
      const cls = options.exports[workflow.className];
      if (typeof cls !== 'function') throw new Error(`the worker does not export the class ${workflow.className} named by the workflow ${workflow.binding}`);
      const binding = new WorkflowBinding(
        platform,
        workflow.name,
        workflow.className,
        cls as WorkflowClass,
        () => env,
        path.join(platform.dataDir, 'workflows', encodeName(workflow.name)),
      );
      env[workflow.binding] = binding;
      return binding;
    });
    if (options.assets) {
      const assets = new AssetServer(options.assets);
      this.assets = assets;
      if (options.assets.binding)
        env[options.assets.binding] = { fetch: async (input: Request | string | URL, init?: RequestInit) => assets.bindingFetch(input, init) };
    }
    this.env = env;
    this.namespaces = namespaces;
    this.entrypoints = new Entrypoints(options.exports, env, () => this.context());
    this.bindings = new WorkerBindings(platform, { config: options.bindingsConfig ?? NO_BINDINGS, entrypoints: this.entrypoints });
    Object.assign(env, this.bindings.env);
  }

  /**
   * Starts what runs without a request: instances with an alarm pending are woken for it,
   * unfinished workflows resume, queue delivery (a previous run's backlog included) and cron
   * triggers begin. Called once the runtime it replaces has shut down, so one process never has
   * two handles on the same files.
   */
  start(): Promise<void> {
    if (!this.started) {
      for (const namespace of this.namespaces) this.track(namespace.resumeAlarms());
      for (const workflow of this.workflows) this.track(workflow.resumeAll());
      this.started = this.bindings.start().catch((error: unknown) => this.platform.logger.error(`[bindings] ${(error as Error)?.stack ?? String(error)}`));
    }
    return this.started;
  }

  private context(): ExecutionContext {
    return { waitUntil: (promise) => this.track(promise), passThroughOnException: () => undefined, props: {} };
  }

  /** The names of the globals (what a bundle reads from its load instead of its own scope). */
  static globalNames(): string[] {
    return Object.keys(WorkerRuntime.globals(process));
  }

  /**
   * Globals of the Workers runtime that differ from Node's, seen by the worker's code only;
   * `process` is the one `processOf` makes (its `env` the worker's, workerGlobals.ts).
   */
  static globals(process: NodeJS.Process): Record<string, unknown> {
    return { Response: WorkerResponse, WebSocketPair, WebSocketRequestResponsePair, navigator: WORKER_NAVIGATOR, process, ...GATED_GLOBALS };
  }

  /** The worker's `process`: `process.env` filled from vars and secrets when workerd would fill it. */
  static processOf(compatibility: Compatibility, vars: Readonly<Record<string, unknown>>, secrets: Readonly<Record<string, string>>): NodeJS.Process {
    return workerProcess(populatesProcessEnv(compatibility) ? processEnvOf(vars, secrets) : {});
  }

  /** The modules a bundle of this worker imports instead of the real packages. */
  static providedModules(env: Record<string, unknown>, process: NodeJS.Process): Record<string, unknown> {
    return {
      agents: agentsModule,
      'agents/workflows': agentWorkflowsModule,
      'cloudflare:workers': { ...cloudflareWorkers, env },
      'cloudflare:workflows': { NonRetryableError },
      'cloudflare:email': cloudflareEmail,
      process,
      'node:process': process,
    };
  }

  async fetch(request: Request): Promise<Response> {
    const pathname = new URL(request.url).pathname;
    if (this.options.testScheduled && pathname === '/__scheduled') return this.manualScheduled(request);
    if (pathname === SCHEDULED_HANDLER_PATH) return this.scheduledHandler(request);
    return asUpgrade(this.autoReplyToClose, await (this.assets ? this.assets.route(request, (r) => this.workerFetch(r)) : this.workerFetch(request)));
  }

  private async workerFetch(request: Request): Promise<Response> {
    return (await this.entrypoints.call('default', 'fetch', [request])) as Response;
  }

  /**
   * wrangler dev's `/__scheduled?cron=…` (with `--test-scheduled`): runs `scheduled()` now, as its
   * middleware does (no `time`; an exception is the request's error).
   */
  private async manualScheduled(request: Request): Promise<Response> {
    await this.bindings.scheduled(new URL(request.url).searchParams.get('cron') ?? '', this.platform.timers.now());
    return new Response('Ran scheduled event');
  }

  /**
   * Miniflare's `/cdn-cgi/handler/scheduled?cron=…&time=<ms>`, always on in wrangler dev: runs
   * `scheduled()` and answers `ok`, or `exception` with a 500 when it throws.
   */
  private async scheduledHandler(request: Request): Promise<Response> {
    const params = new URL(request.url).searchParams;
    const time = Number.parseInt(params.get('time') ?? '', 10);
    try {
      await this.bindings.scheduled(params.get('cron') ?? '', Number.isNaN(time) ? this.platform.timers.now() : time);
      return new Response('ok');
    } catch (error) {
      this.platform.logger.error(`[cron] scheduled() threw: ${(error as Error)?.stack ?? String(error)}`);
      return new Response('exception', { status: 500 });
    }
  }

  private track(promise: Promise<unknown>): void {
    const tracked = promise.catch((error: unknown) => this.platform.logger.error(`waitUntil: ${(error as Error)?.stack ?? String(error)}`));
    this.background.add(tracked);
    void tracked.finally(() => this.background.delete(tracked));
  }

  /** Waits for background work, then closes every instance (committing and snapshotting). */
  async shutdown(): Promise<void> {
    await this.started;
    await this.bindings.stop();
    await Promise.allSettled([...this.background]);
    await Promise.all([...this.namespaces.map((namespace) => namespace.shutdown()), ...this.workflows.map((workflow) => workflow.shutdown())]);
  }
}

/** Where Miniflare (and so wrangler dev) triggers a scheduled event over HTTP. */
const SCHEDULED_HANDLER_PATH = '/cdn-cgi/handler/scheduled';

/** A 101 Response with a WebSocket becomes the upgrade the receiver completes with the real socket. */
function asUpgrade(autoReplyToClose: boolean, response: Response): Response {
  const client = webSocketOf(response);
  if (!client || (response as Partial<UpgradeResponse>)[UPGRADE]) return response;
  const upgrade = new Response(null, { status: 200, headers: response.headers }) as UpgradeResponse;
  upgrade[UPGRADE] = (socket) => bindToTransport(client, socket, autoReplyToClose);
  return upgrade;
}
