/**
 * The agents WebSocket protocol, byte-compatible with agents 0.32.0 (research/agents-sdk.md §4).
 * Key order differs between messages and is reproduced exactly: the connect-time state frame is
 * `{"type","state"}` while the broadcast one is `{"state","type"}`.
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
  return JSON.stringify(stateFollows ? { type: MessageType.CF_AGENT_IDENTITY, name, agent, stateFollows: true } : { type: MessageType.CF_AGENT_IDENTITY, name, agent });
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

/** `camelCaseToKebabCase` of the SDK: binding and class names to URL segments. */
export function camelCaseToKebabCase(text: string): string {
  if (text === text.toUpperCase() && text !== text.toLowerCase()) return text.toLowerCase().replace(/_/g, '-');
  let kebab = text.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
  kebab = kebab.startsWith('-') ? kebab.slice(1) : kebab;
  return kebab.replace(/_/g, '-').replace(/-$/, '');
}
