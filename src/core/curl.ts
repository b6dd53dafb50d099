/**
 * Requests as shell commands (copy as cURL): every argument single-quoted, so header values and
 * bodies from strangers (quotes, `$(…)`, backticks, newlines) reach curl as data, never as shell.
 */

/** Hop-by-hop and framing headers: curl sets its own. */
export const HOP_BY_HOP = new Set(['host', 'content-length', 'connection', 'keep-alive', 'transfer-encoding']);

export const shellQuote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

/** A shell command that sends exactly these bytes: text inline, anything else through base64. */
export function curlCommand(url: string, method: string, headers: Record<string, string>, body: Buffer): string {
  const headerArgs = Object.entries(headers)
    .filter(([name]) => !HOP_BY_HOP.has(name.toLowerCase()))
    .map(([name, value]) => ` \\\n  -H ${shellQuote(`${name}: ${value}`)}`)
    .join('');
  const text = body.toString('utf8');
  const control = [...text].some((ch) => {
    const code = ch.charCodeAt(0);
    return code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d;
  });
  const printable = Buffer.from(text, 'utf8').equals(body) && !control;
  if (body.length === 0) return `curl -X ${method} ${shellQuote(url)}${headerArgs}`;
  if (printable) return `curl -X ${method} ${shellQuote(url)}${headerArgs} \\\n  --data-binary ${shellQuote(text)}`;
  return `printf %s ${shellQuote(body.toString('base64'))} | base64 -d | curl -X ${method} ${shellQuote(url)}${headerArgs} \\\n  --data-binary @-`;
}
