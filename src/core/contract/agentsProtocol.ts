/**
 * The agents WebSocket protocol, byte-compatible with agents 0.32.0 (docs/runtime.md, "What is
 * emulated"), both ways: the frames an Agent sends and how a client reads them, the frames a client
 * sends and how an Agent reads them. The runtime's Agent is the server side; the extension's agent
 * connection and the fixtures' state read are clients. Key order differs between messages and is
 * reproduced exactly: the connect-time state frame is `{"type","state"}` while the broadcast one
 * is `{"state","type"}`, and a client's call is `{"args","id","method","type"}`.
 */

export const MessageType = {
  CF_AGENT_IDENTITY: 'cf_agent_identity',
  CF_AGENT_STATE: 'cf_agent_state',
  CF_AGENT_STATE_ERROR: 'cf_agent_state_error',
  CF_AGENT_MCP_SERVERS: 'cf_agent_mcp_servers',
  CF_MCP_AGENT_EVENT: 'cf_mcp_agent_event',
  CF_AGENT_SESSION: 'cf_agent_session',
  CF_AGENT_SESSION_ERROR: 'cf_agent_session_error',
  RPC: 'rpc',
} as const;

export function identityFrame(name: string, agent: string, stateFollows: boolean): string {
  return JSON.stringify(
    stateFollows ? { type: MessageType.CF_AGENT_IDENTITY, name, agent, stateFollows: true } : { type: MessageType.CF_AGENT_IDENTITY, name, agent },
  );
}

export function connectStateFrame(state: unknown): string {
  return JSON.stringify({ type: MessageType.CF_AGENT_STATE, state });
}

export function broadcastStateFrame(state: unknown): string {
  return JSON.stringify({ state, type: MessageType.CF_AGENT_STATE });
}

export function mcpServersFrame(): string {
  return JSON.stringify({ mcp: { prompts: [], resources: [], servers: {}, tools: [] }, type: MessageType.CF_AGENT_MCP_SERVERS });
}

export function stateErrorFrame(error: string): string {
  return JSON.stringify({ type: MessageType.CF_AGENT_STATE_ERROR, error });
}

/** An RPC result or stream chunk; an undefined result drops the key, as JSON.stringify does. */
export function rpcResultFrame(id: string, result: unknown, done: boolean): string {
  return JSON.stringify({ done, id, result, success: true, type: MessageType.RPC });
}

/** An RPC failure: no `done` key. */
export function rpcErrorFrame(id: string, error: string): string {
  return JSON.stringify({ error, id, success: false, type: MessageType.RPC });
}

/** The SDK's answer to a call of a method the agent does not have. */
export const noSuchMethodError = (method: string): string => `Method ${method} does not exist`;
/** The SDK's answer to a call of a method not marked `@callable`. */
export const notCallableError = (method: string): string => `Method ${method} is not callable`;
const REFUSED_CALL = /^Method \S+ (does not exist|is not callable)$/;

/**
 * Whether an RPC error is one of the two above: the agent refused the call before running
 * anything, so asking again will be refused again (unlike an error the method threw).
 */
export function isRefusedCall(error: string): boolean {
  return REFUSED_CALL.test(error);
}

export interface RpcCall {
  readonly id: string;
  readonly method: string;
  readonly args: unknown[];
}

export type ClientFrame = { kind: 'rpc'; call: RpcCall } | { kind: 'state'; state: unknown } | { kind: 'other' };

/**
 * Classifies a client frame. Only a well-formed RPC (string id, string method, array args) or a
 * state frame is handled by the SDK; everything else goes to `onMessage`.
 */
export function parseClientFrame(message: string | ArrayBuffer | Uint8Array): ClientFrame {
  if (typeof message !== 'string') return { kind: 'other' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch {
    return { kind: 'other' };
  }
  if (!parsed || typeof parsed !== 'object') return { kind: 'other' };
  const frame = parsed as Record<string, unknown>;
  if (frame['type'] === MessageType.RPC && typeof frame['id'] === 'string' && typeof frame['method'] === 'string' && Array.isArray(frame['args'])) {
    return { kind: 'rpc', call: { id: frame['id'], method: frame['method'], args: frame['args'] } };
  }
  if (frame['type'] === MessageType.CF_AGENT_STATE && 'state' in frame) return { kind: 'state', state: frame['state'] };
  return { kind: 'other' };
}

/** A client's call, as AgentClient sends it. */
export function rpcCallFrame({ id, method, args }: RpcCall): string {
  return JSON.stringify({ args, id, method, type: MessageType.RPC });
}

/** A client's new state, as `AgentClient.setState` sends it (the same bytes as a broadcast). */
export function stateUpdateFrame(state: unknown): string {
  return JSON.stringify({ state, type: MessageType.CF_AGENT_STATE });
}

/**
 * The answer to a call: a result (`final` false for a streamed chunk, more follows) or the agent's
 * error text.
 */
export type RpcAnswer = { readonly id: string; readonly final: boolean } & (
  { readonly success: true; readonly result: unknown } | { readonly success: false; readonly error: string }
);

export type ServerFrame =
  | { readonly kind: 'identity'; readonly name: unknown; readonly agent: unknown; readonly stateFollows: boolean }
  | { readonly kind: 'state'; readonly state: unknown }
  | { readonly kind: 'stateError'; readonly error: unknown }
  | { readonly kind: 'mcpServers' }
  | { readonly kind: 'rpc'; readonly answer: RpcAnswer }
  | { readonly kind: 'other' };

/**
 * Classifies a frame the agent sent, as AgentClient reads it: by `type` alone, a state frame's
 * `state` taken as it is (`undefined` when absent), an identity followed by the state only when
 * `stateFollows` is `true`, an RPC answer failed when `success` is falsy and otherwise final
 * unless it has a falsy `done`. An RPC answer without a string id answers no call: other.
 */
export function parseServerFrame(text: string): ServerFrame {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { kind: 'other' };
  }
  if (!parsed || typeof parsed !== 'object') return { kind: 'other' };
  const frame = parsed as Record<string, unknown>;
  switch (frame['type']) {
    case MessageType.CF_AGENT_IDENTITY:
      return { kind: 'identity', name: frame['name'], agent: frame['agent'], stateFollows: frame['stateFollows'] === true };
    case MessageType.CF_AGENT_STATE:
      return { kind: 'state', state: frame['state'] };
    case MessageType.CF_AGENT_STATE_ERROR:
      return { kind: 'stateError', error: frame['error'] };
    case MessageType.CF_AGENT_MCP_SERVERS:
      return { kind: 'mcpServers' };
    case MessageType.RPC:
      return typeof frame['id'] === 'string' ? { kind: 'rpc', answer: rpcAnswer(frame['id'], frame) } : { kind: 'other' };
    default:
      return { kind: 'other' };
  }
}

function rpcAnswer(id: string, frame: Record<string, unknown>): RpcAnswer {
  // A failure ends the call whatever `done` says, as in AgentClient; one without an error text gets one.
  if (!frame['success']) return { id, final: true, success: false, error: String(frame['error'] ?? 'RPC failed') };
  return { id, final: !('done' in frame) || Boolean(frame['done']), success: true, result: frame['result'] };
}

/** `camelCaseToKebabCase` of the SDK: binding and class names to URL segments. */
export function camelCaseToKebabCase(text: string): string {
  if (text === text.toUpperCase() && text !== text.toLowerCase()) return text.toLowerCase().replace(/_/g, '-');
  let kebab = text.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
  kebab = kebab.startsWith('-') ? kebab.slice(1) : kebab;
  return kebab.replace(/_/g, '-').replace(/-$/, '');
}
