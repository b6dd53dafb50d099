/**
 * The workflows area: create (with id and params, a duplicate id, invalid ids, batches), get,
 * `status()` across a run, `step.do` retries (limit/delay/backoff) and NonRetryableError,
 * `step.sleep`, `waitForEvent` + `sendEvent` and its timeout, pause/resume/terminate/restart,
 * errored output, against miniflare's workflows engine.
 */
import type { Area, HttpStep, PollStep } from '../../step';

/** Timestamps differ between runs: every ISO date string becomes "<date>". */
function normalize(body: unknown): unknown {
  if (typeof body === 'string') return /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(body) ? '<date>' : body;
  if (Array.isArray(body)) return body.map(normalize);
  if (body && typeof body === 'object') return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, normalize(v)]));
  return body;
}

const compare = { body: 'json', normalize } as const;

const get = (name: string, path: string): HttpStep => ({ name, path, compare });

/** Polls an instance's status until it is one of `statuses` (with at least `outputs` step outputs). */
function until(name: string, id: string, statuses: string[], timeoutMs = 10_000, outputs = 0): PollStep {
  return {
    kind: 'poll',
    name,
    step: get('status', `/status/${id}`),
    until: (_status, body) => {
      try {
        const seen = JSON.parse(body) as { status: string; __LOCAL_DEV_STEP_OUTPUTS?: unknown[] };
        return statuses.includes(seen.status) && (seen.__LOCAL_DEV_STEP_OUTPUTS?.length ?? 0) >= outputs;
      } catch {
        return false;
      }
    },
    timeoutMs,
    intervalMs: 100,
  };
}

export const area: Area = {
  name: 'workflows',
  folder: 'workflows',
  steps: [
    get('create with an id and params', '/create/basic-1?mode=basic&n=21'),
    until('steps, a sleep and the output; status() shape', 'basic-1', ['complete', 'errored']),
    get('create with an id that exists', '/create/basic-1?mode=basic&n=5'),
    get('the existing instance is unchanged', '/status/basic-1'),
    get('create without an id makes a UUID', '/create/x?noid=1&mode=basic'),
    get('an id with a dot is invalid', '/create/bad.id'),
    get('an id starting with a dash is invalid', '/create/-dash'),
    get('an id of 101 characters is invalid', `/create/${'i'.repeat(101)}`),
    get('an id of 100 characters is valid', `/create/${'i'.repeat(100)}?mode=caught`),
    get('get() of an unknown id', '/status/nobody'),
    get('createBatch', '/batch/pair'),
    until('a batch instance completes', 'pair-b', ['complete', 'errored']),
    get('a step that fails twice, linear backoff', '/create/retry-1?mode=retry'),
    until('is retried and completes on the third attempt', 'retry-1', ['complete', 'errored']),
    get('a step that always throws, limit 2', '/create/exhaust-1?mode=exhaust'),
    until('errors with the step error after 3 attempts', 'exhaust-1', ['complete', 'errored']),
    get('a step that throws NonRetryableError', '/create/fatal-1?mode=fatal'),
    until('errors at once, not retried', 'fatal-1', ['complete', 'errored']),
    get('a step error the run catches', '/create/caught-1?mode=caught'),
    until('the run goes on and completes', 'caught-1', ['complete', 'errored']),
    get('run() itself throws', '/create/thrown-1?mode=thrown'),
    until('errors with the thrown error', 'thrown-1', ['complete', 'errored']),
    get('waitForEvent', '/create/event-1?mode=event'),
    until('waiting for an event is running (miniflare never says waiting)', 'event-1', ['running']),
    get('an event of another type', '/event/event-1?type=other'),
    get('still waiting', '/status/event-1'),
    get('sendEvent', '/event/event-1?type=approve'),
    until('the event completes the run', 'event-1', ['complete', 'errored']),
    get('waitForEvent with a 300 ms timeout', '/create/timeout-1?mode=timeout'),
    until('times out and errors', 'timeout-1', ['complete', 'errored']),
    get('a long sleep', '/create/long-1?mode=long'),
    until('sleeping after a step is running', 'long-1', ['running'], 10_000, 1),
    get('pause', '/pause/long-1'),
    until('paused', 'long-1', ['paused']),
    get('pause again', '/pause/long-1'),
    get('resume', '/resume/long-1'),
    until('running again', 'long-1', ['running'], 10_000, 1),
    get('terminate', '/terminate/long-1'),
    until('terminated', 'long-1', ['terminated']),
    get('terminate a terminated instance', '/terminate/long-1'),
    get('restart', '/restart/long-1'),
    until('runs again from the start', 'long-1', ['running'], 10_000, 1),
    get('terminate a complete instance', '/terminate/basic-1'),
    get('resume a complete instance', '/resume/basic-1'),
    get('restart a complete instance', '/restart/caught-1'),
    until('it completes again', 'caught-1', ['complete']),
  ],
};
