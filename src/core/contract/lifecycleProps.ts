/**
 * How `routeAgentRequest({ props })` hands props to the agent's `onStart`, as agents 0.32.0 does
 * it: UTF-8 JSON in base64 in the `x-agents-lifecycle-props` request header, which the agent's
 * `fetch` decodes (raw JSON too, from older stubs) and removes before the agent sees the request.
 */
export const LIFECYCLE_PROPS_HEADER = 'x-agents-lifecycle-props';

export function encodeLifecycleProps(props: unknown): string {
  return Buffer.from(JSON.stringify(props), 'utf8').toString('base64');
}

/** The props in `header`; throws (as the SDK's JSON.parse does) when they are malformed. */
export function decodeLifecycleProps(header: string): unknown {
  const trimmed = header.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) return JSON.parse(trimmed);
  return JSON.parse(Buffer.from(header, 'base64').toString('utf8'));
}

/** The request without the header, and the props it carried (undefined when it carried none). */
export function takeLifecycleProps(request: Request): { request: Request; props: unknown } {
  const header = request.headers.get(LIFECYCLE_PROPS_HEADER);
  if (!header) return { request, props: undefined };
  const props = decodeLifecycleProps(header);
  const stripped = new Request(request);
  stripped.headers.delete(LIFECYCLE_PROPS_HEADER);
  return { request: stripped, props };
}
