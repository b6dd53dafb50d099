// A webhook agent that hands each delivery to a durable workflow: the workflow parses it,
// reports progress, calls back into the agent over RPC, may wait for a human's approval, merges
// its result into the agent's state and reports completion. The agent records every callback.
import { Agent, getAgentByName } from 'agents';
import { AgentWorkflow, type AgentWorkflowEvent, type AgentWorkflowStep } from 'agents/workflows';

interface Env {
  HookAgent: DurableObjectNamespace<HookAgent>;
  DELIVERY: Workflow;
}

interface Delivery {
  event: string;
  amount: number;
  approval?: boolean;
  fail?: boolean;
}

interface HookState {
  handled: string[];
  last?: string;
}

export class HookAgent extends Agent<Env, HookState> {
  initialState: HookState = { handled: [] };

  onStart(): void {
    this.sql`CREATE TABLE IF NOT EXISTS hook_log (seq INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT, detail TEXT)`;
  }

  private note(kind: string, detail: unknown): void {
    this.sql`INSERT INTO hook_log (kind, detail) VALUES (${kind}, ${JSON.stringify(detail ?? null)})`;
  }

  async receive(delivery: Delivery, id?: string): Promise<string> {
    const options = id ? { id, metadata: { event: delivery.event } } : { metadata: { event: delivery.event } };
    return this.runWorkflow('DELIVERY', delivery, options);
  }

  /** Called by the workflow through `this.agent`. */
  async recordParsed(event: string, cents: number): Promise<number> {
    this.note('rpc', { event, cents });
    return cents * 2;
  }

  async onWorkflowProgress(workflowName: string, workflowId: string, progress: unknown): Promise<void> {
    this.note('progress', { workflowName, workflowId, progress });
  }

  async onWorkflowComplete(workflowName: string, workflowId: string, result?: unknown): Promise<void> {
    this.note('complete', { workflowName, workflowId, result });
  }

  async onWorkflowError(workflowName: string, workflowId: string, error: string): Promise<void> {
    this.note('error', { workflowName, workflowId, error });
  }

  async onWorkflowEvent(workflowName: string, workflowId: string, event: unknown): Promise<void> {
    this.note('event', { workflowName, workflowId, event });
  }

  async report(workflowId?: string): Promise<unknown> {
    const page = this.getWorkflows({ orderBy: 'asc' });
    return {
      log: this.sql<{ kind: string; detail: string }>`SELECT kind, detail FROM hook_log ORDER BY seq`.map((row) => ({ kind: row.kind, detail: JSON.parse(row.detail) })),
      state: this.state,
      total: page.total,
      workflows: page.workflows.map((w) => ({ workflowId: w.workflowId, workflowName: w.workflowName, status: w.status, metadata: w.metadata, error: w.error, completed: w.completedAt !== null })),
      one: workflowId ? this.getWorkflow(workflowId)?.status ?? 'untracked' : undefined,
    };
  }

  async control(action: string, workflowId: string): Promise<unknown> {
    if (action === 'approve') await this.approveWorkflow(workflowId, { reason: 'looks fine', metadata: { by: 'ops' } });
    else if (action === 'reject') await this.rejectWorkflow(workflowId, { reason: 'not today' });
    else if (action === 'terminate') await this.terminateWorkflow(workflowId);
    else if (action === 'status') {
      const status = (await this.getWorkflowStatus('DELIVERY', workflowId)) as { status: string; output?: unknown };
      return { status: status.status, output: status.output ?? null };
    } else if (action === 'delete') return this.deleteWorkflow(workflowId);
    return { done: action, tracked: this.getWorkflow(workflowId)?.status ?? 'untracked' };
  }
}

export class Delivery extends AgentWorkflow<HookAgent, Delivery> {
  async run(event: AgentWorkflowEvent<Delivery>, step: AgentWorkflowStep): Promise<unknown> {
    const delivery = event.payload;
    const parsed = await step.do('parse', async () => ({ event: delivery.event, cents: Math.round(delivery.amount * 100), keys: Object.keys(delivery).sort() }));
    await this.reportProgress({ step: 'parse', status: 'complete', percent: 0.5 });
    const doubled = await step.do('record', async () => this.agent.recordParsed(parsed.event, parsed.cents));
    await step.sendEvent({ kind: 'recorded', doubled });
    if (delivery.fail) {
      await step.do('explode', { retries: { limit: 0, delay: 10 } }, async () => {
        throw new Error(`cannot deliver ${parsed.event}`);
      });
    }
    let approvedBy: unknown = null;
    if (delivery.approval) approvedBy = await this.waitForApproval(step, { timeout: '30 seconds' });
    await step.mergeAgentState({ last: parsed.event });
    const result = { event: parsed.event, doubled, approvedBy };
    await step.reportComplete(result);
    return result;
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    const [, action, name = 'one', id] = url.pathname.split('/');
    const agent = await getAgentByName(env.HookAgent, name);
    try {
      if (action === 'hook') {
        const delivery = (await request.json()) as Delivery;
        const instanceId = await agent.receive(delivery, id);
        return Response.json({ instanceId: id ? instanceId : /^wf_[\w-]{21}$/.test(instanceId) });
      }
      if (action === 'report') return Response.json(await agent.report(id));
      return Response.json(await agent.control(action!, id!));
    } catch (error) {
      return Response.json({ error: (error as Error).message }, { status: 500 });
    }
  },
};
