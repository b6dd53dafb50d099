/**
 * The agent-workflow area: the real agents SDK (under wrangler dev) against Hookbench's
 * emulation of `runWorkflow`, `AgentWorkflow` (`this.agent` RPC, reportProgress, step.sendEvent,
 * step.mergeAgentState, step.reportComplete, waitForApproval, automatic error reports), the
 * `cf_agents_workflows` tracking and the agent's workflow controls.
 */
import type { Area, HttpStep, PollStep } from '../../step';

/** Generated instance ids differ between runs: `wf_<21 characters>` becomes "wf_<id>". */
function normalize(body: unknown): unknown {
  if (typeof body === 'string') return /^wf_[\w-]{21}$/.test(body) ? 'wf_<id>' : body;
  if (Array.isArray(body)) return body.map(normalize);
  if (body && typeof body === 'object') return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, normalize(v)]));
  return body;
}

const json = { body: 'json', normalize } as const;

function hook(name: string, path: string, delivery: object): HttpStep {
  return { name, path, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(delivery), compare: json };
}

/** Polls an agent's report until `ready` holds for it. */
function report(name: string, agent: string, id: string, ready: (report: { one?: string; log: { kind: string }[]; total: number }) => boolean): PollStep {
  return {
    kind: 'poll',
    name,
    step: { name: 'report', path: `/report/${agent}/${id}`, compare: json },
    until: (_status, body) => {
      try {
        return ready(JSON.parse(body));
      } catch {
        return false;
      }
    },
    timeoutMs: 10_000,
    intervalMs: 100,
  };
}

const is = (status: string) => (r: { one?: string }) => r.one === status;
const logged =
  (kind: string, count = 1) =>
  (r: { log: { kind: string }[] }) =>
    r.log.filter((entry) => entry.kind === kind).length >= count;

export const area: Area = {
  name: 'agent-workflow',
  folder: 'agent-workflow',
  steps: [
    hook('runWorkflow with an id hands the webhook over', '/hook/one/order-1', { event: 'order.paid', amount: 12.34 }),
    report('progress, RPC, event, state merge and completion reach the agent', 'one', 'order-1', is('complete')),
    { name: 'getWorkflowStatus', path: '/status/one/order-1', compare: json },
    hook('the same id again is refused by the tracking table', '/hook/one/order-1', { event: 'again', amount: 1 }),
    { name: 'deleteWorkflow', path: '/delete/one/order-1', compare: json },
    report('the row is gone', 'one', 'order-1', (r) => r.total === 0),
    hook('runWorkflow without an id makes wf_<nanoid>', '/hook/six', { event: 'ping', amount: 0 }),
    report('it completes', 'six', 'none', (r) => logged('complete')(r)),
    hook('a delivery that needs approval', '/hook/two/order-2', { event: 'refund', amount: 5, approval: true }),
    report('it records and waits', 'two', 'order-2', logged('event')),
    { name: 'approveWorkflow', path: '/approve/two/order-2', compare: json },
    report('approved: completes with the approval metadata', 'two', 'order-2', is('complete')),
    hook('another that needs approval', '/hook/three/order-3', { event: 'refund', amount: 7, approval: true }),
    report('it waits', 'three', 'order-3', logged('event')),
    { name: 'rejectWorkflow', path: '/reject/three/order-3', compare: json },
    report('rejected: errored, the reason reported once', 'three', 'order-3', is('errored')),
    hook('a delivery whose step throws', '/hook/four/order-4', { event: 'broken', amount: 1, fail: true }),
    report('the error is reported to the agent automatically', 'four', 'order-4', is('errored')),
    hook('one to terminate', '/hook/five/order-5', { event: 'slow', amount: 2, approval: true }),
    report('waiting', 'five', 'order-5', logged('event')),
    { name: 'terminateWorkflow', path: '/terminate/five/order-5', compare: json },
    { name: 'a workflow this agent did not start', path: '/terminate/five/nobody', compare: json },
  ],
};
