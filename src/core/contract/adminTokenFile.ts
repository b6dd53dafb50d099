/**
 * `admin-token`, the admin API's token as the serve that holds a data folder keeps it there
 * (docs/security.md, The data folder's lock), with the admin protocol it speaks
 * (adminProtocol.ts): how a second client of the same user (VS Code attaching to a
 * `hookbench serve` started in a terminal) shows that token without it ever being in arguments or
 * settings, and learns whether it can read that serve's answers. Declared once for the serve that
 * writes it and the extension that reads it. Owner-only (0600 in the 0700 folder): another user
 * cannot read it, and on Linux is refused the admin routes whatever it shows.
 */
import { parseProtocolVersion, type StatedProtocol } from './adminProtocol';
import { internalPath } from './dataFolder';

/** The token's file, in the data folder's internal folder, beside serve.lock. */
export const adminTokenFile = (dataDir: string): string => internalPath(dataDir, 'admin-token');

/** What the file holds. */
export interface AdminTokenFile {
  readonly token: string;
  /** The admin protocol of the serve that wrote it; undefined in a file of a serve from before it was stated (the token alone). */
  readonly protocol: StatedProtocol;
}

const FORMAT = 'hookbench admin-token 2';

/** The file's text: one JSON line. */
export function formatAdminToken(file: { readonly token: string; readonly protocol: number }): string {
  return `${JSON.stringify({ format: FORMAT, protocol: file.protocol, token: file.token })}\n`;
}

/** What a token may hold: the characters of hex, base64url and the usual generated tokens. */
const TOKEN = /^[A-Za-z0-9._~+/=-]{1,512}$/;

/**
 * What the file holds, or undefined for anything else (empty, being written, planted garbage). A
 * file of an earlier serve, the token on one line, gives its token and no protocol.
 */
export function parseAdminTokenFile(text: string): AdminTokenFile | undefined {
  const trimmed = text.trim();
  if (TOKEN.test(trimmed)) return { token: trimmed, protocol: undefined };
  let json: unknown;
  try {
    json = JSON.parse(trimmed);
  } catch {
    return undefined;
  }
  const { format, token, protocol } = (typeof json === 'object' && json !== null ? json : {}) as Record<string, unknown>;
  if (format !== FORMAT || typeof token !== 'string' || !TOKEN.test(token)) return undefined;
  return { token, protocol: parseProtocolVersion(protocol) };
}

/** The token the file holds, whatever protocol it states, or undefined. */
export function parseAdminToken(text: string): string | undefined {
  return parseAdminTokenFile(text)?.token;
}
