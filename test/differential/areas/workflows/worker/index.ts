// A workflow whose `mode` param picks a script (steps, retries, sleeps, events, errors) and HTTP
// routes over the binding: create, status, pause/resume/terminate/restart, sendEvent.
import { WorkflowEntrypoint, type WorkflowEvent, type WorkflowStep } from 'cloudflare:workers';
import { NonRetryableError } from 'cloudflare:workflows';

interface Env {
  STEPS: Workflow<Params>;
}

interface Params {
  mode: string;
  n?: number;
}

/** Attempts per instance and step, kept in the isolate (a retry runs in the same one). */
const attempts = new Map<string, number>();

function attempt(key: string): number {
  const n = (attempts.get(key) ?? 0) + 1;
  attempts.set(key, n);
  return n;
}

export class Steps extends WorkflowEntrypoint<Env, Params> {
  async run(event: WorkflowEvent<Params>, step: WorkflowStep): Promise<unknown> {
    const { mode, n = 1 } = event.payload;
    const id = event.instanceId;
    switch (mode) {
      case 'basic': {
        const doubled = await step.do('double', async () => n * 2);
        const info = await step.do('describe', async () => ({ doubled, list: [1, 'two', null], nested: { ok: true } }));
        await step.sleep('nap', 300);
        const nothing = await step.do('nothing', async () => undefined);
        return { doubled, info, nothing: nothing ?? 'undefined', payload: event.payload, instance: event.instanceId === id };
      }
      case 'retry': {
        const tries = await step.do('flaky', { retries: { limit: 3, delay: 100, backoff: 'linear' } }, async () => {
          const count = attempt(`${id}:flaky`);
          if (count < 3) throw new Error(`attempt ${count} fails`);
          return count;
        });
        return { tries };
      }
      case 'exhaust':
        await step.do('never', { retries: { limit: 2, delay: 50, backoff: 'constant' } }, async () => {
          attempt(`${id}:never`);
          throw new TypeError('never works');
        });
        return 'unreachable';
      case 'fatal':
        await step.do('fatal', async () => {
          attempt(`${id}:fatal`);
          throw new NonRetryableError('stop now');
        });
        return 'unreachable';
      case 'caught': {
        let caught: unknown;
        try {
          await step.do('fails once', { retries: { limit: 0, delay: 10 } }, async () => {
            throw new Error('handled');
          });
        } catch (error) {
          caught = { name: (error as Error).name, message: (error as Error).message };
        }
        const after = await step.do('after', async () => 'went on');
        return { caught, after };
      }
      case 'thrown':
        await step.do('fine', async () => 1);
        throw new RangeError('run() itself throws');
      case 'event': {
        const got = await step.waitForEvent<{ ok: boolean }>('approval', { type: 'approve', timeout: '30 seconds' });
        return { payload: got.payload, type: got.type, stamped: got.timestamp instanceof Date || typeof got.timestamp === 'string' };
      }
      case 'timeout':
        await step.waitForEvent('never comes', { type: 'nothing', timeout: 300 });
        return 'unreachable';
      case 'long':
        await step.do('first', async () => 'done');
        await step.sleep('a long nap', '1 hour');
        return 'woke';
      default:
        throw new NonRetryableError(`unknown mode ${mode}`);
    }
  }
}

function failure(error: unknown): { error: { name: string; message: string } } {
  const e = error as Error;
  return { error: { name: e?.name ?? 'Error', message: e?.message ?? String(error) } };
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    const [, action, id = ''] = url.pathname.split('/');
    try {
      if (action === 'create') {
        const mode = url.searchParams.get('mode') ?? 'basic';
        const n = Number(url.searchParams.get('n') ?? 1);
        const options = url.searchParams.has('noid') ? { params: { mode, n } } : { id, params: { mode, n } };
        const instance = await env.STEPS.create(options);
        return Response.json({ id: url.searchParams.has('noid') ? /^[0-9a-f-]{36}$/.test(instance.id) : instance.id });
      }
      if (action === 'batch') {
        const instances = await env.STEPS.createBatch([{ id: `${id}-a`, params: { mode: 'basic', n: 1 } }, { id: `${id}-b`, params: { mode: 'basic', n: 2 } }]);
        return Response.json(instances.map((i) => i.id));
      }
      const instance = await env.STEPS.get(id);
      if (action === 'status') return Response.json({ id: instance.id, ...(await instance.status()) });
      if (action === 'pause') await instance.pause();
      else if (action === 'resume') await instance.resume();
      else if (action === 'terminate') await instance.terminate();
      else if (action === 'restart') await instance.restart();
      else if (action === 'event') await instance.sendEvent({ type: url.searchParams.get('type') ?? 'approve', payload: { ok: true, n: 7 } });
      else return new Response('Not found', { status: 404 });
      return Response.json({ done: action });
    } catch (error) {
      return Response.json(failure(error), { status: 500 });
    }
  },
};
