/**
 * The routing area: routeAgentRequest's options (cors, prefix, props, onBeforeRequest and
 * onBeforeConnect) and the WebSocket upgrade's answer, against the real SDK on workerd.
 */
import type { Area, Compare, WebSocketStep } from '../../step';

const cors = [
  'access-control-allow-origin',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'access-control-max-age',
  'access-control-allow-credentials',
  'x-extra',
];
const json: Compare = { body: 'json', headers: [...cors, 'content-type'] };
const text: Compare = { body: 'text', headers: [...cors, 'content-type'] };
const origin = { origin: 'https://dash.example' };

/** The agent's greeting frames: identity, state (none here) and MCP servers; the identity names the instance. */
const ws = (name: string, path: string, extra: Partial<WebSocketStep> = {}): WebSocketStep => ({
  kind: 'ws',
  name,
  path,
  frames: 2,
  handshakeHeaders: ['sec-websocket-extensions', 'sec-websocket-protocol', ...cors],
  normalize: (frame) => JSON.parse(frame),
  ...extra,
});

/** Offers whose answers were recorded from workerd: valid, invalid, several, odd spellings. */
const DEFLATE_OFFERS = [
  'permessage-deflate',
  'permessage-deflate; client_max_window_bits',
  'permessage-deflate; server_no_context_takeover',
  'permessage-deflate; client_no_context_takeover; server_max_window_bits=10',
  'permessage-deflate; client_max_window_bits; server_max_window_bits=15; client_no_context_takeover; server_no_context_takeover',
  'permessage-deflate; server_max_window_bits=7, permessage-deflate; client_max_window_bits',
  'permessage-deflate; server_max_window_bits=9; client_max_window_bits=10',
  'permessage-deflate; client_max_window_bits=08',
  'permessage-deflate; client_max_window_bits=+9',
  'permessage-deflate; client_max_window_bits = 10',
  'permessage-deflate; client_max_window_bits="10"',
  'permessage-deflate; client_max_window_bits=16',
  'permessage-deflate; server_max_window_bits',
  'permessage-deflate; server_no_context_takeover; server_no_context_takeover',
  'permessage-deflate; server_no_context_takeover=1',
  'permessage-deflate; foo=1',
  'permessage-deflate;;',
  ' permessage-deflate ;  server_no_context_takeover , x',
  'PerMessage-Deflate',
  'x-webkit-deflate-frame',
  'foo, permessage-deflate',
];

export const area: Area = {
  name: 'routing',
  folder: 'routing',
  hookbenchFlags: ['--allow-origin', 'https://dash.example'],
  steps: [
    { name: 'a plain route of the worker', path: '/plain/x' },
    { name: 'an agent request reaches onRequest with its subpath and query', path: '/agents/echo-agent/one/sub/path?x=1', compare: json },
    { name: 'an unknown namespace is 400 Invalid request', path: '/agents/nobody/one', compare: text },
    { name: 'the class name is not a namespace', path: '/agents/EchoAgent/one', compare: text },
    { name: 'a missing name: routeAgentRequest answers null', path: '/agents/echo-agent', compare: text },
    { name: 'empty segments are skipped', path: '//agents//echo-agent/two', compare: json },
    { name: 'names are not URL-decoded', path: '/agents/echo-agent/acme%2Fwidgets', compare: json },
    { name: 'OPTIONS without cors reaches the agent', method: 'OPTIONS', path: '/agents/echo-agent/one', headers: origin, compare: json },
    { name: 'no CORS headers without the option', path: '/agents/echo-agent/one', headers: origin, compare: json },

    {
      name: 'cors: true preflight answers 200 with the default headers',
      method: 'OPTIONS',
      path: '/open/echo-agent/one',
      headers: { ...origin, 'access-control-request-method': 'POST' },
      compare: text,
    },
    { name: 'cors: true adds the headers to the agent response', path: '/open/echo-agent/one?q', headers: origin, compare: json },
    {
      name: 'cors: true on a POST',
      method: 'POST',
      path: '/open/echo-agent/one',
      headers: { ...origin, 'content-type': 'text/plain' },
      body: 'hi',
      compare: json,
    },
    { name: 'cors: true on an unknown namespace adds nothing', path: '/open/nobody/one', headers: origin, compare: text },
    { name: 'cors: true preflight of an unknown namespace is 400', method: 'OPTIONS', path: '/open/nobody/one', headers: origin, compare: text },
    { name: 'cors headers object preflight', method: 'OPTIONS', path: '/custom/echo-agent/one', headers: origin, compare: text },
    { name: 'cors headers object on a response', path: '/custom/echo-agent/one', headers: origin, compare: json },

    { name: 'a two-part prefix', path: '/api/v1/echo-agent/three/x', compare: json },
    { name: 'a two-part prefix, only its first part', path: '/api/echo-agent/three', compare: text },
    { name: 'the default prefix is not served beside a custom one', path: '/open/agents/echo-agent', compare: text },

    { name: 'props reach onStart, and the agent does not see the header', path: '/props/echo-agent/fresh', compare: json },
    { name: 'props on a started instance keep the first start', path: '/props/echo-agent/fresh?again', compare: json },
    { name: 'no props without the option', path: '/agents/echo-agent/propless', compare: json },

    { name: 'onBeforeRequest refusing, with CORS headers', path: '/guarded/echo-agent/one', headers: origin, compare: text },
    { name: 'onBeforeRequest passing a new Request on', path: '/guarded/echo-agent/one', headers: { ...origin, 'x-token': 'ok' }, compare: json },
    { name: 'onBeforeRequest sees the route', path: '/guarded/echo-agent/one?route', compare: json },
    { name: 'OPTIONS with cors never reaches onBeforeRequest', method: 'OPTIONS', path: '/guarded/echo-agent/one', compare: text },

    ws('a WebSocket connects and greets, offering permessage-deflate', '/agents/echo-agent/ws-one'),
    ws('onBeforeConnect refusing', '/guarded/echo-agent/ws-two', { headers: origin }),
    ws('onBeforeConnect sees the route', '/guarded/echo-agent/ws-two?route'),
    ws('onBeforeConnect passing: no CORS headers on the upgrade', '/guarded/echo-agent/ws-two?token=ok', { headers: origin }),
    ws('a WebSocket to an unknown namespace', '/agents/nobody/ws'),
    ...DEFLATE_OFFERS.map((offer) =>
      ws(`permessage-deflate offer ${JSON.stringify(offer)}`, '/agents/echo-agent/deflate', { frames: 0, headers: { 'sec-websocket-extensions': offer } }),
    ),
  ],
};
