/**
 * The webhook-dashboard area: a worker shaped like the cloudflare/agents examples (github-webhook,
 * cross-domain), driven as their users do: signed webhooks, the dashboard's assets, the agents
 * client's RPC and state frames over WebSocket, and a token-guarded lobby from another origin.
 */
import { createHmac } from 'node:crypto';
import type { Area, Compare, HttpStep, WebSocketStep } from '../../step';

const SECRET = 'dashboard-secret';
const cors = [
  'access-control-allow-origin',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'access-control-allow-credentials',
  'access-control-max-age',
];
const text: Compare = { headers: ['content-type'] };
const page: Compare = { headers: ['content-type', 'cache-control'] };
const origin = { origin: 'http://localhost:5173' };

/** A signed delivery to /hooks/<source>. */
function hook(name: string, source: string, kind: string | null, payload: unknown, secret = SECRET): HttpStep {
  const body = JSON.stringify(payload);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-feed-signature': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
  };
  if (kind) headers['x-feed-kind'] = kind;
  return { name, method: 'POST', path: `/hooks/${source}`, headers, body, compare: text };
}

const rpc = (id: string, method: string, args: unknown[] = []) => JSON.stringify({ type: 'rpc', id, method, args });

/** The frames the agents client sees: identity, state, MCP servers, then RPC answers (connection ids vary). */
const client = (name: string, path: string, send: string[], frames: number, extra: Partial<WebSocketStep> = {}): WebSocketStep => ({
  kind: 'ws',
  name,
  path,
  send,
  frames,
  normalize: (frame) => {
    try {
      return JSON.parse(frame) as unknown;
    } catch {
      return frame;
    }
  },
  ...extra,
});

export const area: Area = {
  name: 'webhook-dashboard',
  folder: 'webhook-dashboard',
  steps: [
    { name: 'the dashboard page', path: '/', compare: page },
    { name: 'its stylesheet', path: '/app.css', compare: page },
    { name: 'a missing asset falls through to the worker (404)', path: '/missing.png', compare: text },
    { name: 'agent name for a source', path: '/api/agent-name?source=Acme/Widgets', compare: { body: 'json', headers: ['content-type'] } },
    { name: 'agent name without a source', path: '/api/agent-name', compare: text },
    hook('a delivery without its kind header is 400', 'Acme/Widgets', null, { title: 'x' }),
    hook('a delivery signed with another secret is 401', 'Acme/Widgets', 'push', { title: 'x' }, 'wrong'),
    {
      name: 'a delivery that is not JSON is 400',
      method: 'POST',
      path: '/hooks/acme-widgets',
      headers: { 'x-feed-kind': 'push', 'x-feed-signature': `sha256=${createHmac('sha256', SECRET).update('{').digest('hex')}` },
      body: '{',
      compare: text,
    },
    hook('a push is stored', 'Acme/Widgets', 'push', { id: 'd1', source: 'Acme/Widgets', title: 'Pushed 2 commits', at: '2026-03-01T10:00:00.000Z' }),
    hook('an issue is stored', 'Acme/Widgets', 'issues', {
      id: 'd2',
      source: 'Acme/Widgets',
      action: 'opened',
      title: 'Widget wobbles',
      at: '2026-03-01T10:05:00.000Z',
    }),
    hook('the same delivery id again replaces its row', 'Acme/Widgets', 'issues', {
      id: 'd2',
      source: 'Acme/Widgets',
      action: 'edited',
      title: 'Widget wobbles a lot',
      at: '2026-03-01T10:05:00.000Z',
    }),
    { name: 'GET on a feed agent is 405', path: '/agents/feed-agent/acme-widgets', compare: text },
    client(
      'the dashboard connects: state, then getEvents and getStats',
      '/agents/feed-agent/acme-widgets',
      [rpc('e1', 'getEvents', [10]), rpc('s1', 'getStats')],
      5,
    ),
    client('a method that is not callable is refused', '/agents/feed-agent/acme-widgets', [rpc('x1', 'onRequest')], 4),
    client(
      'clearEvents answers the count and broadcasts the cleared state',
      '/agents/feed-agent/acme-widgets',
      [rpc('c1', 'clearEvents'), rpc('c2', 'getEvents')],
      6,
    ),
    {
      name: 'lobby preflight from another origin',
      method: 'OPTIONS',
      path: '/agents/lobby-agent/main',
      headers: { ...origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
      compare: { headers: cors },
    },
    {
      name: 'lobby without a token is 401, with CORS headers',
      path: '/agents/lobby-agent/main',
      headers: origin,
      compare: { headers: [...cors, 'content-type'] },
    },
    {
      name: 'lobby with a Bearer token',
      path: '/agents/lobby-agent/main',
      headers: { ...origin, authorization: 'Bearer lobby-token' },
      compare: { headers: [...cors, 'content-type'] },
    },
    client('lobby WebSocket with the token: greeting and echo', '/agents/lobby-agent/main?token=lobby-token&user=ada', ['hi'], 4, { headers: origin }),
    client('lobby WebSocket without the token is refused', '/agents/lobby-agent/main?user=eve', [], 0, { headers: origin }),
  ],
};
