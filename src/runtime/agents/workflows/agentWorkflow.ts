/**
 * What `import … from 'agents/workflows'` gives a worker bundled by Hookbench: `AgentWorkflow`,
 * a WorkflowEntrypoint that knows the agent which started it with `runWorkflow` (the params carry
 * the agent's binding and name), with `this.agent` (a stub of that agent), `reportProgress`,
 * `broadcastToClients`, `waitForApproval`, and durable `step.reportComplete`/`reportError`/
 * `sendEvent`/`updateAgentState`/`mergeAgentState`/`resetAgentState`, each a `step.do` so a
 * replay does not call the agent twice. An unhandled error is reported to the agent once.
 * Behaviour and messages as the SDK's (agents 0.32 `workflows.ts`).
 */
import { WorkflowEntrypoint } from '../../bindings/workflows/workflowEntrypoint';
import { getAgentByName } from '../routing';
import type { DurableObjectNamespace } from '../../objects/namespace';
import type { WorkflowStep } from '../../bindings/workflows/workflowStep';

/** Thrown by `waitForApproval` when the agent called `rejectWorkflow`. */
export class WorkflowRejectedError extends Error {
  constructor(
    readonly reason: string | undefined,
    readonly workflowId: string | undefined,
  ) {
    super(reason ? `Workflow rejected: ${reason}` : 'Workflow rejected');
    this.name = 'WorkflowRejectedError';
  }
}

/** Where the workflow reports to, as `runWorkflow` put it in the params. */
export interface AgentOrigin {
  kind: 'agent';
  version: 1;
  binding: string;
  name: string;
}

export interface WorkflowCallback {
  workflowName: string;
  workflowId: string;
  type: 'progress' | 'complete' | 'error' | 'event';
  progress?: unknown;
  result?: unknown;
  error?: string;
  event?: unknown;
  timestamp: number;
}

/** The agent methods a workflow calls (the SDK's internal RPC surface). */
interface AgentCallbacks {
  _workflow_handleCallback(callback: WorkflowCallback): Promise<void>;
  _workflow_broadcast(message: unknown): Promise<void>;
  _workflow_updateState(action: 'set' | 'merge' | 'reset', state?: unknown): Promise<void>;
}

type AgentStep = WorkflowStep & {
  reportComplete(result?: unknown): Promise<void>;
  reportError(error: unknown): Promise<void>;
  sendEvent(event: unknown): Promise<void>;
  updateAgentState(state: unknown): Promise<void>;
  mergeAgentState(partial: unknown): Promise<void>;
  resetAgentState(): Promise<void>;
};

interface RunEvent {
  payload: Record<string, unknown>;
  timestamp: Date;
  instanceId: string;
}

const PARAM_KEYS = ['__agentName', '__agentBinding', '__workflowName', '__agentOrigin'];

export class AgentWorkflow<AgentType = unknown, Params = unknown, _Progress = unknown, Env = unknown> extends WorkflowEntrypoint<Env, Params> {
  #agent: (AgentType & AgentCallbacks) | undefined;
  #workflowId: string | undefined;
  #workflowName: string | undefined;
  #errorReported = false;

  constructor(ctx: { waitUntil(promise: Promise<unknown>): void }, env: Env) {
    super(ctx, env);
    // The subclass's run() is the user's: wrap it (per instance) so the agent is known first.
    const userRun = (this as unknown as { run: (event: unknown, step: unknown) => unknown }).run;
    Object.defineProperty(this, 'run', { value: (event: RunEvent, step: WorkflowStep) => this.#run(userRun, event, step), writable: true, configurable: true });
  }

  async #run(userRun: (event: unknown, step: unknown) => unknown, event: RunEvent, step: WorkflowStep): Promise<unknown> {
    const payload = { ...(event.payload ?? {}) };
    const origin = payload['__agentOrigin'] as AgentOrigin | undefined;
    await this.#init(
      payload['__agentName'] as string | undefined,
      payload['__agentBinding'] as string | undefined,
      payload['__workflowName'] as string | undefined,
      origin,
      event.instanceId,
    );
    for (const key of PARAM_KEYS) delete payload[key];
    try {
      const cleaned = { ...event, payload };
      return await userRun.call(this, cleaned, this.extendStep(this.#wrap(step), cleaned));
    } catch (error) {
      await this.#autoReport(error);
      throw error;
    } finally {
      this.#agent = undefined;
    }
  }

  async #init(
    agentName: string | undefined,
    agentBinding: string | undefined,
    workflowName: string | undefined,
    origin: AgentOrigin | undefined,
    instanceId: string,
  ): Promise<void> {
    if (!workflowName || (!origin && (!agentName || !agentBinding))) {
      throw new Error(
        'AgentWorkflow requires __agentName, __agentBinding, and __workflowName in params. Use agent.runWorkflow() to start workflows with proper agent context.',
      );
    }
    this.#workflowId = instanceId;
    this.#workflowName = workflowName;
    this.#errorReported = false;
    if (origin && origin.version !== 1)
      throw new Error(
        `AgentWorkflow received an unsupported origin version (${origin.version}). Upgrade the "agents" package running this Workflow to match the Agent that started it.`,
      );
    if (origin && origin.kind !== 'agent')
      throw new Error(`AgentWorkflow: workflows started by sub-agents are not emulated by Hookbench (origin kind "${origin.kind}")`);
    const name = origin?.name ?? agentName;
    const binding = origin?.binding ?? agentBinding;
    if (!name || !binding)
      throw new Error('AgentWorkflow requires a valid Agent origin. Use agent.runWorkflow() to start workflows with proper agent context.');
    const namespace = (this.env as Record<string, unknown>)[binding] as DurableObjectNamespace | undefined;
    if (!namespace) throw new Error(`Agent binding '${binding}' not found in environment`);
    this.#agent = (await getAgentByName(namespace, name)) as unknown as AgentType & AgentCallbacks;
  }

  #wrap(step: WorkflowStep): AgentStep {
    let counter = 0;
    const wrapped = step as AgentStep;
    const durably = (kind: string, fn: () => Promise<void>): Promise<void> => step.do(`__agent_${kind}_${counter++}`, fn);
    wrapped.reportComplete = (result) => durably('reportComplete', () => this.notifyAgent(this.#callback('complete', { result })));
    wrapped.reportError = (error) => {
      this.#errorReported = true;
      const message = error instanceof Error ? error.message : (error as string);
      return durably('reportError', () => this.notifyAgent(this.#callback('error', { error: message })));
    };
    wrapped.sendEvent = (event) => durably('sendEvent', () => this.notifyAgent(this.#callback('event', { event })));
    wrapped.updateAgentState = (state) => durably('updateState', () => this.agent._workflow_updateState('set', state));
    wrapped.mergeAgentState = (partial) => durably('mergeState', () => this.agent._workflow_updateState('merge', partial));
    wrapped.resetAgentState = () => durably('resetState', () => this.agent._workflow_updateState('reset'));
    return wrapped;
  }

  #callback(type: WorkflowCallback['type'], fields: Partial<WorkflowCallback>): WorkflowCallback {
    return { workflowName: this.#workflowName!, workflowId: this.#workflowId!, type, ...fields, timestamp: Date.now() };
  }

  /** A stub of the agent that started this workflow (inside `run()` only). */
  get agent(): AgentType & AgentCallbacks {
    if (!this.#agent) throw new Error("Agent not initialized. Ensure you're accessing this.agent inside run().");
    return this.#agent;
  }

  get workflowId(): string | undefined {
    return this.#workflowId;
  }

  get workflowName(): string | undefined {
    return this.#workflowName;
  }

  /** Lets a subclass add its own helpers to the step the user's `run()` gets. */
  extendStep(step: AgentStep, _event: unknown): AgentStep {
    return step;
  }

  async notifyAgent(callback: WorkflowCallback): Promise<void> {
    await this.agent._workflow_handleCallback(callback);
  }

  /** Non-durable: may repeat when a step is retried or the run replayed. */
  async reportProgress(progress: unknown): Promise<void> {
    await this.notifyAgent(this.#callback('progress', { progress }));
  }

  broadcastToClients(message: unknown): void {
    void this.agent._workflow_broadcast(message);
  }

  async waitForApproval<T = unknown>(step: AgentStep, options?: { timeout?: string | number; eventType?: string; stepName?: string }): Promise<T> {
    const event = await step.waitForEvent<{ approved?: boolean; reason?: string; metadata?: T }>(options?.stepName ?? 'wait-for-approval', {
      type: options?.eventType ?? 'approval',
      ...(options?.timeout === undefined ? {} : { timeout: options.timeout }),
    });
    const payload = event.payload ?? {};
    if (!payload.approved) {
      await step.reportError(payload.reason ?? 'Workflow rejected');
      throw new WorkflowRejectedError(payload.reason, this.#workflowId);
    }
    return payload.metadata as T;
  }

  async #autoReport(error: unknown): Promise<void> {
    if (this.#errorReported) return;
    this.#errorReported = true;
    try {
      await this.notifyAgent(this.#callback('error', { error: error instanceof Error ? error.message : String(error) }));
    } catch {
      // Best effort, as the SDK: the run's own error is what counts.
    }
  }
}
