/**
 * Public projects nobody here wrote, run unchanged: create-cloudflare's Workers templates, taken
 * from the create-cloudflare package this folder's package.json pins (installed into the tools
 * cache), made into projects as C3 makes them (c3.ts), each against wrangler dev and Hookbench
 * with the requests a user of the template makes (its README, its comments, its own tests).
 * README.md beside this file says what runs and why the rest does not.
 */
import type { Area, Compare, Step } from '../../step';
import { createProject, type TemplateProject } from './c3';

/** Each runtime listens on its own port: a URL the worker echoes is compared without it. */
/** Each runtime listens on its own port: URLs and Host headers name it. */
const withoutPort = (text: string) => text.replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:PORT');

const text: Compare = { headers: ['content-type'] };
/** An asset: its bytes and type (ETag values are each runtime's own hash: docs/runtime.md). */
const asset: Compare = { headers: ['content-type'] };
const json: Compare = { body: 'json', headers: ['content-type'] };

/** A v4 UUID's shape, for what the worker draws at random. */
const uuidShape = (body: string) => (/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(body) ? 'a v4 UUID' : body);

/** The id a step's JSON answer carried (this runtime's own). */
const idFrom = (earlier: ReadonlyMap<string, string>, step: string) => (JSON.parse(earlier.get(step) ?? '{}') as { id?: string }).id ?? 'missing';

const helloWorld: readonly Step[] = [
  { name: 'GET / (its test: "Hello World!")', path: '/', compare: text },
  { name: 'any other path and method answer the same', method: 'POST', path: '/anything?x=1', body: 'hi', compare: text },
];

const durableObject: readonly Step[] = [
  { name: 'GET /: the worker calls sayHello("world") on the object named foo', path: '/', compare: text },
  { name: 'a second request reaches the same object', path: '/again', compare: text },
];

const durableObjectWithAssets: readonly Step[] = [
  { name: 'GET /: public/index.html', path: '/', compare: asset },
  { name: 'GET /index.html redirects to /', path: '/index.html', compare: { headers: ['location'] } },
  { name: "GET /message (the page's fetch): the object's greeting", path: '/message', compare: text },
];

const withAssets: readonly Step[] = [
  { name: 'GET /: public/index.html', path: '/', compare: asset },
  { name: "GET /message (the page's fetch)", path: '/message', compare: text },
  { name: 'GET /random (the button): a fresh UUID', path: '/random', compare: { ...text, normalize: (body) => uuidShape(String(body)) } },
  { name: "any other path: the worker's 404", path: '/nope', compare: text },
];

/** A workflow's status with its run-specific values (ids, times) cut away. */
function workflowShape(body: unknown): unknown {
  if (Array.isArray(body)) return body.map(workflowShape);
  if (!body || typeof body !== 'object') return body;
  return Object.fromEntries(
    Object.entries(body).map(([key, value]) => [key, ['id', 'instanceId', 'timestamp'].includes(key) ? typeof value : workflowShape(value)]),
  );
}

const workflow: readonly Step[] = [
  { name: 'GET /favicon.ico: an empty JSON 404', path: '/favicon.ico', compare: json },
  // miniflare has run the first step by the time create()'s status() is answered; Hookbench writes
  // each step's result to disk before the run goes on, so its status() comes first (README.md).
  {
    name: 'GET / creates an instance and answers its id and status',
    path: '/',
    compare: {
      ...json,
      normalize: (body) =>
        workflowShape({ ...(body as object), details: { ...(body as { details: object }).details, __LOCAL_DEV_STEP_OUTPUTS: 'compared by the next step' } }),
    },
  },
  {
    kind: 'poll',
    name: "GET /?instanceId=<id>: the first step's output, then waiting for the approval event",
    step: {
      name: 'status',
      path: (earlier) => `/?instanceId=${idFrom(earlier, 'GET / creates an instance and answers its id and status')}`,
      compare: { ...json, normalize: workflowShape },
    },
    until: (status, body) => status === 200 && body.includes('doc_7392_rev3.pdf'),
    timeoutMs: 10_000,
  },
  { name: 'an unknown instance id', path: '/?instanceId=nobody', compare: { body: 'ignore' } },
];

/** The consumer logs each message: its id (each runtime's own) and the producing request, headers and all. */
const queueMessage = /message \S+ processed: \{"url":.*\}\}/;

const queues: readonly Step[] = [
  { name: 'GET / sends a message', path: '/', compare: text },
  { name: 'POST /hello sends another', method: 'POST', path: '/hello', body: '{}', compare: text },
  {
    kind: 'log',
    name: "the consumer logs both, in order, with the requests' headers",
    pattern: queueMessage,
    count: 2,
    timeoutMs: 15_000,
    normalize: (line) => withoutPort(line.replace(/message \S+ /, 'message <id> ')),
  },
];

const scheduled: readonly Step[] = [
  { name: 'GET /: how to test the handler, with this URL', path: '/', compare: { ...text, normalize: (body) => withoutPort(String(body)) } },
];

const openapi: readonly Step[] = [
  { name: 'GET /: the Swagger UI', path: '/', compare: text },
  { name: 'GET /openapi.json: the schema chanfana makes', path: '/openapi.json', compare: json },
  { name: 'GET /api/tasks?page=0', path: '/api/tasks?page=0', compare: json },
  { name: 'GET /api/tasks without page: validation error', path: '/api/tasks', compare: json },
  {
    name: 'POST /api/tasks creates a task',
    method: 'POST',
    path: '/api/tasks',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'lorem', slug: 'lorem', description: 'a task', completed: false, due_date: '2026-01-01T00:00:00.000Z' }),
    compare: json,
  },
  {
    name: 'POST /api/tasks with a bad body',
    method: 'POST',
    path: '/api/tasks',
    headers: { 'content-type': 'application/json' },
    body: '{"name":3}',
    compare: json,
  },
  { name: 'GET /api/tasks/lorem', path: '/api/tasks/lorem', compare: json },
  { name: 'GET /api/tasks/unknown', path: '/api/tasks/unknown', compare: json },
  { name: 'DELETE /api/tasks/lorem', method: 'DELETE', path: '/api/tasks/lorem', compare: json },
];

const common: readonly Step[] = [
  { name: 'GET /: the list of routes', path: '/', compare: text },
  { name: 'GET /redirect: to example.com', path: '/redirect', compare: { ...text, headers: ['location', 'content-type'] } },
  { name: 'GET /api/todos (itty-router)', path: '/api/todos', compare: text },
  { name: 'GET /api/todos/12', path: '/api/todos/12', compare: text },
  {
    name: 'POST /api/todos with JSON',
    method: 'POST',
    path: '/api/todos',
    headers: { 'content-type': 'application/json' },
    body: '{"title":"milk"}',
    compare: text,
  },
  { name: "GET /api/nope: the router's 404", path: '/api/nope', compare: text },
];

interface TemplateRun {
  readonly template: string;
  readonly variants: readonly TemplateProject['variant'][];
  readonly steps: readonly Step[];
  readonly flags?: readonly string[];
}

const RUNS: readonly TemplateRun[] = [
  { template: 'hello-world', variants: ['js', 'ts'], steps: helloWorld },
  { template: 'hello-world-durable-object', variants: ['js', 'ts'], steps: durableObject },
  { template: 'hello-world-durable-object-with-assets', variants: ['js', 'ts'], steps: durableObjectWithAssets },
  { template: 'hello-world-with-assets', variants: ['js', 'ts'], steps: withAssets },
  { template: 'hello-world-workflows', variants: ['js', 'ts'], steps: workflow },
  { template: 'queues', variants: ['js', 'ts'], steps: queues },
  // Its package.json's `dev` script: `wrangler dev --test-scheduled`.
  { template: 'scheduled', variants: ['js', 'ts'], steps: scheduled, flags: ['--test-scheduled'] },
  { template: 'openapi', variants: ['ts'], steps: openapi },
  { template: 'common', variants: ['js', 'ts'], steps: common },
];

export const areas: Area[] = RUNS.flatMap((run) =>
  run.variants.map((variant): Area => {
    const project = { template: run.template, variant, name: `my-${run.template}-${variant}` };
    return {
      name: `public-templates:${run.template}-${variant}`,
      folder: 'public-templates',
      steps: run.steps,
      ...(run.flags ? { flags: run.flags } : {}),
      prepare: (work, tools) => createProject(project, work, tools),
    };
  }),
);
