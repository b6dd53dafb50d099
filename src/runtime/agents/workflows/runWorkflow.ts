/**
 * The agent's side of the agents SDK's workflow integration: `runWorkflow` starts a workflow
 * with the agent's origin in its params and tracks it in `cf_agents_workflows`; the controls
 * (`sendWorkflowEvent`, approve/reject, pause/resume/terminate/restart, `getWorkflowStatus`) go
 * through the binding and update the row. The `Agent` class delegates to this, one line a method.
 * Messages and row updates as the SDK's (agents 0.32).
 */
import type { AgentOrigin } from './agentWorkflow';
import { camelCaseToKebabCase } from '../../../core/contract/agentsProtocol';
import { nanoid } from '../jobs';
import type { WorkflowTracking } from './workflowTable';

/** The part of a Workflow binding the agent uses. */
interface WorkflowBindingLike {
  create(options: { id?: string; params?: unknown; retention?: unknown }): Promise<{ id: string }>;
  get(id: string): Promise<InstanceLike>;
}

interface InstanceLike {
  status(): Promise<{ status: string; error?: { name?: string; message?: string } | null; output?: unknown }>;
  sendEvent(event: { type: string; payload?: unknown }): Promise<void>;
  pause(): Promise<void>;
  resume(): Promise<void>;
  terminate(): Promise<void>;
  restart(): Promise<void>;
}

export interface RunWorkflowOptions {
  id?: string;
  metadata?: Record<string, unknown>;
  agentBinding?: string;
  retention?: unknown;
}

/** What the agent gives: its env, name, class name and (lazily) its tracking table. */
export interface WorkflowsHost {
  readonly env: Record<string, unknown>;
  readonly name: string;
  readonly className: string;
  tracking(): WorkflowTracking;
}

function isWorkflowBinding(value: unknown): value is WorkflowBindingLike {
  return !!value && typeof value === 'object' && 'create' in value && 'get' in value;
}

export class AgentWorkflows {
  constructor(private readonly host: WorkflowsHost) {}

  /** The `cf_agents_workflows` table (made on first use). */
  tracking(): WorkflowTracking {
    return this.host.tracking();
  }

  binding(workflowName: string): WorkflowBindingLike {
    const binding = this.host.env[workflowName];
    if (!isWorkflowBinding(binding)) throw new Error(`Workflow binding '${workflowName}' not found in environment`);
    return binding;
  }

  bindingNames(): string[] {
    return Object.entries(this.host.env)
      .filter(([, value]) => isWorkflowBinding(value))
      .map(([key]) => key);
  }

  /** The env key of this agent's namespace: its class name, or the kebab-case forms equal. */
  agentBinding(className: string): string | undefined {
    for (const [key, value] of Object.entries(this.host.env)) {
      if (!value || typeof value !== 'object' || typeof (value as { idFromName?: unknown }).idFromName !== 'function') continue;
      if (key === className || camelCaseToKebabCase(key) === camelCaseToKebabCase(className)) return key;
      // Hookbench knows each namespace's class: a binding named unlike its class is found too.
      if ((value as { className?: unknown }).className === className) return key;
    }
    return undefined;
  }

  async run(workflowName: string, params: unknown, options?: RunWorkflowOptions): Promise<string> {
    const workflow = this.binding(workflowName);
    const binding = options?.agentBinding ?? this.agentBinding(this.host.className);
    if (!binding) throw new Error('Could not detect Agent binding name from class name. Pass it explicitly via options.agentBinding');
    const origin: AgentOrigin = { kind: 'agent', version: 1, binding, name: this.host.name };
    const id = options?.id ?? `wf_${nanoid()}`;
    const instance = await workflow.create({
      id,
      params: { ...(params as object), __agentName: this.host.name, __agentBinding: binding, __workflowName: workflowName, __agentOrigin: origin },
      ...(options?.retention === undefined ? {} : { retention: options.retention }),
    });
    this.host.tracking().insert(nanoid(), instance.id, workflowName, options?.metadata);
    return instance.id;
  }

  async sendEvent(workflowName: string, workflowId: string, event: { type: string; payload?: unknown }): Promise<void> {
    const instance = await this.binding(workflowName).get(workflowId);
    await instance.sendEvent(event);
  }

  /** The tracked row's binding, or the SDK's error for an id this agent did not start. */
  private tracked(workflowId: string): string {
    const info = this.host.tracking().get(workflowId);
    if (!info) throw new Error(`Workflow ${workflowId} not found in tracking table`);
    return info.workflowName;
  }

  async approve(workflowId: string, data?: { reason?: string; metadata?: unknown }): Promise<void> {
    await this.sendEvent(this.tracked(workflowId), workflowId, {
      type: 'approval',
      payload: { approved: true, reason: data?.reason, metadata: data?.metadata },
    });
  }

  async reject(workflowId: string, data?: { reason?: string }): Promise<void> {
    await this.sendEvent(this.tracked(workflowId), workflowId, { type: 'approval', payload: { approved: false, reason: data?.reason } });
  }

  /** pause, resume or terminate, then the row takes the instance's status. */
  async control(workflowId: string, action: 'pause' | 'resume' | 'terminate'): Promise<void> {
    const instance = await this.binding(this.tracked(workflowId)).get(workflowId);
    await instance[action]();
    this.host.tracking().update(workflowId, await instance.status());
  }

  async restart(workflowId: string, options: { resetTracking?: boolean } = {}): Promise<void> {
    const instance = await this.binding(this.tracked(workflowId)).get(workflowId);
    await instance.restart();
    if (options.resetTracking ?? true) this.host.tracking().reset(workflowId);
    else this.host.tracking().update(workflowId, await instance.status());
  }

  async status(workflowName: string, workflowId: string): Promise<unknown> {
    const status = await (await this.binding(workflowName).get(workflowId)).status();
    this.host.tracking().update(workflowId, status);
    return status;
  }

  migrate(oldName: string, newName: string): number {
    this.binding(newName);
    const count = this.host.tracking().rename(oldName, newName);
    if (count > 0) console.log(`[Agent] Migrated ${count} workflow(s) from '${oldName}' to '${newName}'`);
    return count;
  }
}
