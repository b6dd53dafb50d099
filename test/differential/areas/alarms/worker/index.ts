// An object whose alarm records each run's retryCount/isRetry and fails the first time when asked.
import { DurableObject } from 'cloudflare:workers';

interface Env {
  CLOCK: DurableObjectNamespace<Clock>;
}

export class Clock extends DurableObject<Env> {
  async arm(inMs: number, failFirst: boolean): Promise<boolean> {
    await this.ctx.storage.put('failFirst', failFirst);
    await this.ctx.storage.put('runs', []);
    await this.ctx.storage.setAlarm(Date.now() + inMs);
    return (await this.ctx.storage.getAlarm()) !== null;
  }

  async disarm(): Promise<unknown> {
    await this.ctx.storage.deleteAlarm();
    return this.ctx.storage.getAlarm();
  }

  async alarm(info: { retryCount: number; isRetry: boolean }): Promise<void> {
    const runs = ((await this.ctx.storage.get<unknown[]>('runs')) ?? []).concat([{ retryCount: info.retryCount, isRetry: info.isRetry, alarmInside: await this.ctx.storage.getAlarm() }]);
    await this.ctx.storage.put('runs', runs);
    if ((await this.ctx.storage.get('failFirst')) && runs.length === 1) throw new Error('first run fails');
  }

  async report(): Promise<unknown> {
    return { runs: (await this.ctx.storage.get('runs')) ?? [], pending: (await this.ctx.storage.getAlarm()) !== null };
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    const [, action, name = 'one'] = url.pathname.split('/');
    const stub = env.CLOCK.getByName(name);
    if (action === 'arm') return Response.json(await stub.arm(Number(url.searchParams.get('in') ?? 0), url.searchParams.has('fail')));
    if (action === 'disarm') return Response.json(await stub.disarm());
    if (action === 'report') return Response.json(await stub.report());
    return new Response('Not found', { status: 404 });
  },
};
