/**
 * The `Agent` class of the `agents` package, on the emulated Durable Object: state with its
 * persistence and broadcast rules, the `sql` template, lifecycle hooks, WebSocket connections and
 * the RPC protocol, queue and schedules. Behaviour follows docs/agents-sdk.md.
 */
import type { WorkflowCallback } from './workflows/agentWorkflow';
import { AgentWorkflows, type RunWorkflowOptions } from './workflows/runWorkflow';
import { callableMetadata, StreamingResponse, type CallableMetadata } from './callable';
import { Connection } from './connection';
import { getCurrentAgent, runInAgentContext } from './context';
import { DurableObject, SERVICES, type DurableObjectState, type InstanceServices } from '../objects/durableObject';
import { HOSTED, type Hosted, type HostedHooks, type Socket } from '../objects/hosted';
import { SqlError } from '../errors';
import { delay } from '../../core/timers';
import { JobStore, nanoid, type QueueItem, type RetryOptions, type Schedule, type ScheduleOptions } from './jobs';
import { WorkflowTracking, type WorkflowCriteria, type WorkflowInfo, type WorkflowPage } from './workflows/workflowTable';
import {
  broadcastStateFrame,
  camelCaseToKebabCase,
  connectStateFrame,
  identityFrame,
  mcpServersFrame,
  noSuchMethodError,
  notCallableError,
  parseClientFrame,
  rpcErrorFrame,
  rpcResultFrame,
  stateErrorFrame,
  type RpcCall,
} from '../../core/contract/agentsProtocol';
import { AGENT_STATE_DDL, AGENT_STATE_ROW_ID, AGENT_STATE_SELECT, AGENT_STATE_UPSERT, stateFromText, stateText } from '../../core/contract/tables';

export interface ConnectionContext {
  readonly request: Request;
}

export type WSMessage = string | ArrayBuffer | Uint8Array;

const warnedOnStateUpdate = new WeakSet<object>();

export class Agent<Env = unknown, State = unknown> extends DurableObject<Env> implements Hosted {
  static options = {
    sendIdentityOnConnect: true,
    hungScheduleTimeoutSeconds: 30,
    keepAliveIntervalMs: 30_000,
    retry: { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 3000 },
  };

  /** Set by subclasses; used when no state row exists yet. */
  declare initialState: State;

  #state: { value: State } | undefined;
  readonly #connections = new Map<string, Connection>();
  readonly #jobs: JobStore;
  #started: Promise<void> | undefined;
  #runningJobs = false;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(AGENT_STATE_DDL);
    this.#jobs = new JobStore(ctx.storage.sql, () => this.#services.timers.now());
    const proto = Object.getPrototypeOf(this) as Agent;
    if (proto.onStateUpdate !== Agent.prototype.onStateUpdate && proto.onStateChanged !== Agent.prototype.onStateChanged) {
      throw new Error('Override onStateChanged or the deprecated onStateUpdate, not both');
    }
  }

  get #services(): InstanceServices {
    return this.ctx[SERVICES];
  }

  /** The instance name: `ctx.id.name`. */
  get name(): string {
    return this.ctx.id.name ?? this.ctx.id.toString();
  }

  // ---- state ---------------------------------------------------------------------------------

  get state(): State {
    if (this.#state) return this.#state.value;
    const row = this.ctx.storage.sql.exec<{ state: string }>(AGENT_STATE_SELECT, AGENT_STATE_ROW_ID).toArray()[0];
    if (row) {
      this.#state = { value: stateFromText(row.state) as State };
    } else if (this.initialState !== undefined) {
      // Reading the state persists the initial state, as the SDK does.
      this.#persistState(this.initialState);
      this.#state = { value: this.initialState };
    } else {
      return undefined as State;
    }
    return this.#state.value;
  }

  /** Server-side updates come from "server" even inside an RPC: every connection gets the broadcast. */
  setState(state: State): void {
    const { connection } = currentConnection(this);
    if (connection?.readonly) throw new Error('Connection is readonly');
    this.#applyState(state, 'server');
  }

  setConnectionReadonly(connection: Connection, readonly = true): void {
    connection.readonly = readonly;
  }

  isConnectionReadonly(connection: Connection): boolean {
    return connection.readonly;
  }

  #applyState(state: State, source: Connection | 'server'): void {
    this.validateStateChange(state, source);
    this.#persistState(state);
    this.#state = { value: state };
    const exclude = source === 'server' ? undefined : source.id;
    let frame: string | undefined;
    for (const connection of this.#connections.values()) {
      if (connection.protocol && connection.id !== exclude) connection.send((frame ??= broadcastStateFrame(state)));
    }
    this.#services.onStateChanged?.(state);
    this.ctx.waitUntil(
      Promise.resolve()
        .then(() => this.#notifyStateChanged(state, source))
        .catch((error: unknown) => this.#reportError(error)),
    );
  }

  #persistState(state: State): void {
    this.ctx.storage.sql.exec(AGENT_STATE_UPSERT, AGENT_STATE_ROW_ID, stateText(state));
  }

  #notifyStateChanged(state: State, source: Connection | 'server'): unknown {
    const proto = Object.getPrototypeOf(this) as Agent;
    if (proto.onStateUpdate !== Agent.prototype.onStateUpdate) {
      const cls = this.constructor;
      if (!warnedOnStateUpdate.has(cls)) {
        warnedOnStateUpdate.add(cls);
        console.warn(`[agents] ${cls.name}: onStateUpdate is deprecated, use onStateChanged`);
      }
      return this.onStateUpdate(state, source);
    }
    return this.onStateChanged(state, source);
  }

  /** Throw to reject a state change. Synchronous. */
  validateStateChange(_nextState: State, _source: Connection | 'server'): void {}

  onStateChanged(_state: State | undefined, _source: Connection | 'server'): void | Promise<void> {}

  /** @deprecated use onStateChanged */
  onStateUpdate(_state: State | undefined, _source: Connection | 'server'): void | Promise<void> {}

  // ---- SQL -----------------------------------------------------------------------------------

  /** `this.sql\`SELECT … WHERE id = ${id}\``: synchronous, an array of rows, errors as SqlError. */
  sql<T = Record<string, string | number | boolean | null>>(strings: TemplateStringsArray, ...values: (string | number | boolean | null)[]): T[] {
    const query = strings.reduce((text, part, i) => text + (i > 0 ? '?' : '') + part, '');
    try {
      return this.ctx.storage.sql.exec(query, ...values).toArray() as T[];
    } catch (error) {
      throw new SqlError(query, error);
    }
  }

  // ---- lifecycle -----------------------------------------------------------------------------

  onStart(_props?: unknown): void | Promise<void> {}

  onRequest(_request: Request): Response | Promise<Response> {
    return new Response('Not implemented', { status: 404 });
  }

  onConnect(_connection: Connection, _ctx: ConnectionContext): void | Promise<void> {}

  onMessage(_connection: Connection, _message: WSMessage): void | Promise<void> {}

  onClose(_connection: Connection, _code: number, _reason: string, _wasClean: boolean): void | Promise<void> {}

  /** Default: log and rethrow, so a failing request answers 500. */
  onError(connectionOrError: Connection | unknown, error?: unknown): void | Promise<void> {
    if (connectionOrError instanceof Connection && error !== undefined) {
      console.error('Error on websocket connection:', connectionOrError.id, error);
      throw error;
    }
    console.error('Error on server:', connectionOrError);
    throw connectionOrError;
  }

  getConnectionTags(_connection: Connection, _ctx: ConnectionContext): string[] | Promise<string[]> {
    return [];
  }

  shouldSendProtocolMessages(_connection: Connection, _ctx: ConnectionContext): boolean {
    return true;
  }

  shouldConnectionBeReadonly(_connection: Connection, _ctx: ConnectionContext): boolean {
    return false;
  }

  /** Runs `onStart` once per wake, before the first request; resumes pending jobs. */
  __unsafe_ensureInitialized(props?: unknown): Promise<void> {
    this.#started ??= runInAgentContext({ agent: this, connection: undefined, request: undefined }, async () => {
      await this.onStart(props);
      this.#jobsChanged();
    });
    return this.#started;
  }

  async fetch(request: Request): Promise<Response> {
    await this.__unsafe_ensureInitialized();
    return runInAgentContext({ agent: this, connection: undefined, request }, async () => {
      try {
        return await this.onRequest(request);
      } catch (error) {
        await this.onError(error);
        throw error;
      }
    });
  }

  // ---- the host's hooks (src/runtime/objects/hosted.ts) ---------------------------------

  [HOSTED](): HostedHooks {
    return {
      start: (props) => this.__unsafe_ensureInitialized(props),
      connect: async (socket, request, gate) => {
        const connection = this.#connection(socket, request, gate);
        await this.#connect(connection, request);
        return {
          message: (data) => this.#message(connection, data),
          close: (code, reason, wasClean) => this.#close(connection, code, reason, wasClean),
        };
      },
      runJobs: () => this.#runJobs(),
    };
  }

  /** The connection's id is the client's `_pk` (PartySocket's), else a fresh one, as the SDK's server does. */
  #connection(socket: Socket, request: Request, gate: (send: () => void) => void): Connection {
    const id = new URL(request.url).searchParams.get('_pk') ?? nanoid();
    return new Connection(id, request.url, socket, gate);
  }

  // ---- connections ---------------------------------------------------------------------------

  /** A WebSocket to this instance is open. */
  async #connect(connection: Connection, request: Request): Promise<void> {
    await this.__unsafe_ensureInitialized();
    const ctx = { request };
    await runInAgentContext({ agent: this, connection, request }, async () => {
      connection.tags = [connection.id, ...(await this.getConnectionTags(connection, ctx))];
      connection.readonly = this.shouldConnectionBeReadonly(connection, ctx);
      connection.protocol = this.shouldSendProtocolMessages(connection, ctx);
      this.#connections.set(connection.id, connection);
      if (connection.protocol) {
        const state = this.state;
        if ((this.constructor as typeof Agent).options.sendIdentityOnConnect) {
          connection.send(identityFrame(this.name, camelCaseToKebabCase(this.constructor.name), state !== undefined));
        }
        if (state !== undefined) connection.send(connectStateFrame(state));
        connection.send(mcpServersFrame());
      }
      await this.#guard(connection, () => this.onConnect(connection, ctx));
    });
  }

  async #message(connection: Connection, message: WSMessage): Promise<void> {
    await runInAgentContext({ agent: this, connection, request: undefined }, async () => {
      const frame = parseClientFrame(message);
      if (frame.kind === 'rpc') return this.#rpc(connection, frame.call);
      if (frame.kind === 'state') {
        if (connection.readonly) return connection.send(stateErrorFrame('Connection is readonly'));
        try {
          this.#applyState(frame.state as State, connection);
        } catch {
          connection.send(stateErrorFrame('State update rejected'));
        }
        return;
      }
      await this.#guard(connection, () => this.onMessage(connection, message));
    });
  }

  async #close(connection: Connection, code: number, reason: string, wasClean: boolean): Promise<void> {
    this.#connections.delete(connection.id);
    await runInAgentContext({ agent: this, connection, request: undefined }, () =>
      this.#guard(connection, () => this.onClose(connection, code, reason, wasClean)),
    );
  }

  async #guard(connection: Connection, fn: () => unknown): Promise<void> {
    try {
      await fn();
    } catch (error) {
      await this.onError(connection, error);
    }
  }

  async #rpc(connection: Connection, { id, method, args }: RpcCall): Promise<void> {
    const fn = (this as unknown as Record<string, unknown>)[method];
    let meta: CallableMetadata | undefined;
    if (typeof fn !== 'function') return connection.send(rpcErrorFrame(id, noSuchMethodError(method)));
    if (!(meta = callableMetadata(fn))) return connection.send(rpcErrorFrame(id, notCallableError(method)));
    if (meta.streaming) {
      const stream = new StreamingResponse(connection, id);
      try {
        await fn.apply(this, [stream, ...args]);
      } catch (error) {
        if (!stream.isClosed) stream.error(errorMessage(error));
      }
      return;
    }
    try {
      const result = await fn.apply(this, args);
      connection.send(rpcResultFrame(id, result, true));
    } catch (error) {
      connection.send(rpcErrorFrame(id, errorMessage(error)));
    }
  }

  broadcast(message: string | ArrayBuffer | Uint8Array, without?: string[]): void {
    for (const connection of this.#connections.values()) {
      if (!without?.includes(connection.id)) connection.send(message);
    }
  }

  *getConnections<T = unknown>(tag?: string): IterableIterator<Connection<T>> {
    for (const connection of this.#connections.values()) {
      if (tag === undefined || connection.tags.includes(tag)) yield connection as Connection<T>;
    }
  }

  getConnection<T = unknown>(id: string): Connection<T> | undefined {
    return this.#connections.get(id) as Connection<T> | undefined;
  }

  getCallableMethods(): Map<string, CallableMetadata> {
    const out = new Map<string, CallableMetadata>();
    for (let proto = Object.getPrototypeOf(this); proto && proto !== Agent.prototype; proto = Object.getPrototypeOf(proto)) {
      for (const key of Object.getOwnPropertyNames(proto)) {
        const meta = callableMetadata((this as unknown as Record<string, unknown>)[key]);
        if (meta && !out.has(key)) out.set(key, meta);
      }
    }
    return out;
  }

  // ---- queue ---------------------------------------------------------------------------------

  async queue<T = unknown>(callback: keyof this & string, payload: T, options?: { retry?: RetryOptions; id?: string }): Promise<string> {
    this.#assertMethod(callback);
    const id = this.#jobs.enqueue(callback, payload, { ...(this.constructor as typeof Agent).options.retry, ...options?.retry }, options?.id);
    this.#jobsChanged();
    return id;
  }

  async dequeue(id: string): Promise<void> {
    this.#jobs.deleteWhere("capability = 'queue' AND id = ?", id);
  }

  async dequeueAll(): Promise<void> {
    this.#jobs.deleteWhere("capability = 'queue'");
  }

  async dequeueAllByCallback(callback: string): Promise<void> {
    this.#jobs.deleteWhere("capability = 'queue' AND fn = ?", callback);
  }

  async getQueue(id: string): Promise<QueueItem | undefined> {
    return this.#jobs.queueItems(' AND id = ?', id)[0];
  }

  /** Queue items whose payload has `key` equal to `value`. */
  async getQueues(key: string, value: string): Promise<QueueItem[]> {
    return this.#jobs.queueItems(' ORDER BY time').filter((item) => (item.payload as Record<string, unknown> | null)?.[key] === value);
  }

  // ---- schedules -----------------------------------------------------------------------------

  async schedule<T = unknown>(when: Date | number | string, callback: keyof this & string, payload?: T, options?: ScheduleOptions): Promise<Schedule<T>> {
    this.#assertMethod(callback);
    const schedule = this.#jobs.schedule(when, callback, payload, options ?? {});
    this.#jobsChanged();
    return schedule as Schedule<T>;
  }

  async scheduleEvery<T = unknown>(intervalSeconds: number, callback: keyof this & string, payload?: T, options?: ScheduleOptions): Promise<Schedule<T>> {
    this.#assertMethod(callback);
    if (!(intervalSeconds > 0)) throw new Error('scheduleEvery: the interval is a positive number of seconds');
    const schedule = this.#jobs.schedule(0, callback, payload, options ?? {}, { intervalSeconds });
    this.#jobsChanged();
    return schedule as Schedule<T>;
  }

  async getScheduleById<T = unknown>(id: string): Promise<Schedule<T> | undefined> {
    return this.#jobs.schedules(' AND id = ?', id)[0] as Schedule<T> | undefined;
  }

  /** @deprecated use getScheduleById */
  getSchedule<T = unknown>(id: string): Schedule<T> | undefined {
    return this.#jobs.schedules(' AND id = ?', id)[0] as Schedule<T> | undefined;
  }

  async listSchedules<T = unknown>(criteria: { id?: string; type?: Schedule['type']; timeRange?: { start?: Date; end?: Date } } = {}): Promise<Schedule<T>[]> {
    return this.getSchedules<T>(criteria);
  }

  /** @deprecated use listSchedules */
  getSchedules<T = unknown>(criteria: { id?: string; type?: Schedule['type']; timeRange?: { start?: Date; end?: Date } } = {}): Schedule<T>[] {
    let where = '';
    const bindings: unknown[] = [];
    if (criteria.id !== undefined) {
      where += ' AND id = ?';
      bindings.push(criteria.id);
    }
    if (criteria.timeRange?.start) {
      where += ' AND time >= ?';
      bindings.push(criteria.timeRange.start.getTime());
    }
    if (criteria.timeRange?.end) {
      where += ' AND time <= ?';
      bindings.push(criteria.timeRange.end.getTime());
    }
    const all = this.#jobs.schedules(where + ' ORDER BY time', ...bindings) as Schedule<T>[];
    return criteria.type === undefined ? all : all.filter((s) => s.type === criteria.type);
  }

  async cancelSchedule(id: string): Promise<boolean> {
    const removed = this.#jobs.deleteWhere("capability = 'scheduler' AND id = ?", id) > 0;
    this.#jobsChanged();
    return removed;
  }

  #assertMethod(callback: string): void {
    if (typeof (this as unknown as Record<string, unknown>)[callback] !== 'function') throw new Error(`this.${callback} is not a function`);
  }

  #jobsChanged(): void {
    this.#services.onJobsChanged(this.#jobs.nextTime());
  }

  /** Runs every job that is due, one at a time, retrying failures with backoff. */
  async #runJobs(): Promise<void> {
    if (this.#runningJobs) return;
    this.#runningJobs = true;
    try {
      for (let job = this.#jobs.nextDue(); job; job = this.#jobs.nextDue()) {
        const { item } = job;
        const retry = this.#jobs.retryOptions(item.id);
        const fn = (this as unknown as Record<string, unknown>)[item.callback];
        let failure: unknown;
        for (let attempt = 1; attempt <= retry.maxAttempts; attempt++) {
          try {
            if (typeof fn !== 'function') throw new Error(`this.${item.callback} is not a function`);
            await runInAgentContext({ agent: this, connection: undefined, request: undefined }, () => fn.call(this, item.payload, item));
            failure = undefined;
            break;
          } catch (error) {
            failure = error;
            if (attempt < retry.maxAttempts) await delay(this.#services.timers, Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** (attempt - 1)));
          }
        }
        if (job.kind === 'queue') this.#jobs.delete(item.id);
        else this.#jobs.reschedule(job.item);
        if (failure !== undefined) this.#reportError(failure);
        await this.ctx.storage.sync();
      }
    } finally {
      this.#runningJobs = false;
      this.#jobsChanged();
    }
  }

  // ---- workflows (agents/workflows; the logic is in agentWorkflows.ts) ------------------------

  #workflowTracking: WorkflowTracking | undefined;
  #workflowsApi: AgentWorkflows | undefined;

  get #workflows(): AgentWorkflows {
    return (this.#workflowsApi ??= new AgentWorkflows({
      env: this.env as Record<string, unknown>,
      name: this.name,
      className: this.constructor.name,
      tracking: () => (this.#workflowTracking ??= new WorkflowTracking(this.ctx.storage.sql, () => this.#services.timers.now())),
    }));
  }

  /** Starts a workflow with this agent as its origin and tracks it; returns the instance id. */
  runWorkflow(workflowName: string, params: unknown, options?: RunWorkflowOptions): Promise<string> {
    return this.#workflows.run(workflowName, params, options);
  }
  sendWorkflowEvent(workflowName: string, workflowId: string, event: { type: string; payload?: unknown }): Promise<void> {
    return this.#workflows.sendEvent(workflowName, workflowId, event);
  }
  approveWorkflow(workflowId: string, data?: { reason?: string; metadata?: unknown }): Promise<void> {
    return this.#workflows.approve(workflowId, data);
  }
  rejectWorkflow(workflowId: string, data?: { reason?: string }): Promise<void> {
    return this.#workflows.reject(workflowId, data);
  }
  terminateWorkflow(workflowId: string): Promise<void> {
    return this.#workflows.control(workflowId, 'terminate');
  }
  pauseWorkflow(workflowId: string): Promise<void> {
    return this.#workflows.control(workflowId, 'pause');
  }
  resumeWorkflow(workflowId: string): Promise<void> {
    return this.#workflows.control(workflowId, 'resume');
  }
  restartWorkflow(workflowId: string, options?: { resetTracking?: boolean }): Promise<void> {
    return this.#workflows.restart(workflowId, options);
  }
  getWorkflowStatus(workflowName: string, workflowId: string): Promise<unknown> {
    return this.#workflows.status(workflowName, workflowId);
  }
  getWorkflow(workflowId: string): WorkflowInfo | undefined {
    return this.#workflows.tracking().get(workflowId);
  }
  getWorkflows(criteria?: WorkflowCriteria): WorkflowPage {
    return this.#workflows.tracking().list(criteria);
  }
  deleteWorkflow(workflowId: string): boolean {
    return this.#workflows.tracking().delete(workflowId);
  }
  deleteWorkflows(criteria?: WorkflowCriteria): number {
    return this.#workflows.tracking().deleteMany(criteria);
  }
  migrateWorkflowBinding(oldName: string, newName: string): number {
    return this.#workflows.migrate(oldName, newName);
  }

  /** Every callback of an AgentWorkflow: the row is updated, then the matching hook runs. */
  async onWorkflowCallback(callback: WorkflowCallback): Promise<void> {
    this.#workflows.tracking().onCallback(callback);
    if (callback.type === 'progress') await this.onWorkflowProgress(callback.workflowName, callback.workflowId, callback.progress);
    else if (callback.type === 'complete') await this.onWorkflowComplete(callback.workflowName, callback.workflowId, callback.result);
    else if (callback.type === 'error') await this.onWorkflowError(callback.workflowName, callback.workflowId, callback.error ?? '');
    else if (callback.type === 'event') await this.onWorkflowEvent(callback.workflowName, callback.workflowId, callback.event);
  }
  async onWorkflowProgress(_workflowName: string, _workflowId: string, _progress: unknown): Promise<void> {}
  async onWorkflowComplete(_workflowName: string, _workflowId: string, _result?: unknown): Promise<void> {}
  async onWorkflowError(workflowName: string, workflowId: string, error: string): Promise<void> {
    console.error(`Workflow error [${workflowName}/${workflowId}]: ${error}\nOverride onWorkflowError() in your Agent to handle workflow errors.`);
  }
  async onWorkflowEvent(_workflowName: string, _workflowId: string, _event: unknown): Promise<void> {}

  /** @internal RPC from an AgentWorkflow. */
  async _workflow_handleCallback(callback: WorkflowCallback): Promise<void> {
    await this.__unsafe_ensureInitialized();
    await this.onWorkflowCallback(callback);
  }
  /** @internal RPC from an AgentWorkflow's broadcastToClients. */
  async _workflow_broadcast(message: unknown): Promise<void> {
    await this.__unsafe_ensureInitialized();
    this.broadcast(JSON.stringify(message));
  }
  /** @internal RPC from an AgentWorkflow's step.updateAgentState/mergeAgentState/resetAgentState. */
  async _workflow_updateState(action: 'set' | 'merge' | 'reset', state?: unknown): Promise<void> {
    await this.__unsafe_ensureInitialized();
    if (action === 'set') this.setState(state as State);
    else if (action === 'merge') this.setState({ ...((this.state ?? {}) as object), ...(state as object) } as State);
    else this.setState(this.initialState);
  }

  /** The DO alarm entry point: due jobs run from here. */
  async alarm(): Promise<void> {
    await this.#runJobs();
  }

  #reportError(error: unknown): void {
    try {
      const handled = this.onError(error);
      if (handled instanceof Promise) handled.catch(() => undefined);
    } catch {
      // The default onError rethrows after logging; there is no request to fail here.
    }
  }
}

/** The connection whose message is being handled now, if the code runs on behalf of one. */
function currentConnection(agent: object): { connection: Connection | undefined } {
  const current = getCurrentAgent();
  return { connection: current.agent === agent ? current.connection : undefined };
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : 'Unknown error occurred';
}
