/**
 * The vars, services and cron area: JSON vars reach the worker as values, .dev.vars win over vars,
 * service bindings reach the worker's own default export and a WorkerEntrypoint's fetch and RPC
 * methods, and /__scheduled?cron=… (wrangler dev's --test-scheduled, Hookbench's too) runs
 * scheduled() with the cron and time it names.
 */
import type { Area, HttpStep } from '../../step';

const json = (name: string, path: string): HttpStep => ({ name, path, compare: { body: 'json' } });

/** scheduledTime without `time=` is each runtime's clock: the log is compared with it cut away. */
const withoutNowTimes = (body: unknown) =>
  (body as [string, unknown][]).map(([key, value]) => [key.replace(/:(\d+)$/, (whole, ms: string) => (ms === '1767225600000' ? whole : ':now')), value]);

/** An error page's first line (the stack below it is each runtime's own). */
const firstLine = (body: unknown) => String(body).split('\n')[0];

export const area: Area = {
  name: 'vars-services-cron',
  folder: 'vars-services-cron',
  flags: ['--test-scheduled'],
  steps: [
    json('JSON vars arrive as values, .dev.vars over vars', '/vars'),
    json('env holds exactly the bindings', '/env-keys'),
    json('a service binding to the default export', '/self'),
    json('RPC on a default export that is a plain object', '/rpc/default-method'),
    json('RPC with arguments', '/rpc/add'),
    json('RPC reading the entrypoint env', '/rpc/greet'),
    json('RPC returning structured values', '/rpc/shape'),
    json('RPC that throws', '/rpc/fail'),
    json('RPC to a method the entrypoint lacks', '/rpc/missing'),
    json("fetch on the entrypoint's binding", '/rpc/fetch'),
    { name: 'nothing scheduled yet', path: '/scheduled-log', compare: { body: 'json' } },
    { name: '/__scheduled runs scheduled()', path: '/__scheduled?cron=*/5+*+*+*+*', compare: { headers: ['content-type'] } },
    {
      name: '/__scheduled takes no time (scheduledTime is now)',
      path: '/__scheduled?cron=0+3+*+*+mon&time=1767225600001',
      compare: { headers: ['content-type'] },
    },
    { name: 'with no cron', path: '/__scheduled', compare: { headers: ['content-type'] } },
    { name: "a scheduled() that throws is the request's error", path: '/__scheduled?cron=fail', compare: { headers: ['content-type'], normalize: firstLine } },
    {
      name: '/cdn-cgi/handler/scheduled with a time',
      path: '/cdn-cgi/handler/scheduled?cron=0+3+*+*+mon&time=1767225600000',
      compare: { headers: ['content-type'] },
    },
    { name: '/cdn-cgi/handler/scheduled that throws', path: '/cdn-cgi/handler/scheduled?cron=fail&time=1767225600000', compare: { headers: ['content-type'] } },
    { name: 'scheduled() saw the cron, the time, the type', path: '/scheduled-log', compare: { body: 'json', normalize: withoutNowTimes } },
    { name: 'a POST to /__scheduled', method: 'POST', path: '/__scheduled?cron=*/5+*+*+*+*', compare: { headers: ['content-type'] } },
  ],
};
