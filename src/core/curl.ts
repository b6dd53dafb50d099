/**
 * Requests as shell commands (copy as cURL): every argument single-quoted, so header values and
 * bodies from strangers (quotes, `$(…)`, backticks, newlines) reach curl as data, never as shell.
 */

/** Hop-by-hop, framing and browser transport headers: curl sets its own, and they are noise in a replay. */
export const HOP_BY_HOP = new Set(['host', 'content-length', 'connection', 'keep-alive', 'transfer-encoding', 'accept-encoding']);

const isTransportNoise = (name: string): boolean => HOP_BY_HOP.has(name) || name.startsWith('sec-fetch-');

export const shellQuote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

/** A shell command that sends exactly these bytes: text inline, anything else through base64. */
export function curlCommand(url: string, method: string, headers: Record<string, string>, body: Buffer): string {
  const headerArgs = Object.entries(headers)
    .filter(([name]) => !isTransportNoise(name.toLowerCase()))
    .map(([name, value]) => ` \\\n  -H ${shellQuote(`${name}: ${value}`)}`)
    .join('');
  const text = body.toString('utf8');
  const control = [...text].some((ch) => {
    const code = ch.charCodeAt(0);
    return code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d;
  });
  const printable = Buffer.from(text, 'utf8').equals(body) && !control;
  // The method is quoted too: a delivery read from disk may carry anything in it.
  const request = `curl -X ${shellQuote(method)} ${shellQuote(url)}${headerArgs}`;
  if (body.length === 0) return request;
  if (printable) return `${request} \\\n  --data-binary ${shellQuote(text)}`;
  return `printf %s ${shellQuote(body.toString('base64'))} | base64 -d | ${request} \\\n  --data-binary @-`;
}
