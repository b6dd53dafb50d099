/** The alarms area: an alarm in the past fires at once; a failing one is retried 2 s later with retryCount 1. */
import type { Area } from '../../step';

const done = (runs: number) => (_status: number, body: string) => {
  try {
    const report = JSON.parse(body) as { runs: unknown[]; pending: boolean };
    return report.runs.length >= runs && !report.pending;
  } catch {
    return false;
  }
};

export const area: Area = {
  name: 'alarms',
  folder: 'alarms',
  steps: [
    { name: 'an alarm set in the past is pending', path: '/arm/past?in=-1000', compare: { body: 'json' } },
    {
      kind: 'poll',
      name: 'it fires at once, getAlarm() null inside',
      step: { name: 'report', path: '/report/past', compare: { body: 'json' } },
      until: done(1),
      timeoutMs: 5000,
      intervalMs: 100,
    },
    { name: 'a deleted alarm is gone', path: '/disarm/gone', compare: { body: 'json' } },
    { name: 'a failing alarm', path: '/arm/flaky?in=0&fail=1', compare: { body: 'json' } },
    {
      kind: 'poll',
      name: 'is retried with retryCount 1, isRetry true',
      step: { name: 'report', path: '/report/flaky', compare: { body: 'json' } },
      until: done(2),
      timeoutMs: 10000,
      intervalMs: 200,
    },
  ],
};
