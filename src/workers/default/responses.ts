/** The seed's answers are short text/plain bodies; `headers` carry Hookbench's notes about them. */
export function textResponse(body: string, status: number, headers: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: { 'content-type': 'text/plain;charset=UTF-8', ...headers } });
}
