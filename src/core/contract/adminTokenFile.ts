/**
 * `admin-token`, the admin API's token as the serve that holds a data folder keeps it there
 * (docs/security.md, The data folder's lock): how a second client of the same user (VS Code
 * attaching to a `hookbench serve` started in a terminal) shows that token without it ever being
 * in arguments or settings. Declared once for the serve that writes it and the extension that
 * reads it. Owner-only (0600 in the 0700 folder): another user cannot read it, and on Linux is
 * refused the admin routes whatever it shows.
 */
import { internalPath } from './dataFolder';

/** The token's file, in the data folder's internal folder, beside serve.lock. */
export const adminTokenFile = (dataDir: string): string => internalPath(dataDir, 'admin-token');

/** The file's text: the token on one line. */
export function formatAdminToken(token: string): string {
  return `${token}\n`;
}

/** What a token may hold: the characters of hex, base64url and the usual generated tokens. */
const TOKEN = /^[A-Za-z0-9._~+/=-]{1,512}$/;

/** The token the file holds, or undefined for anything else (empty, being written, planted garbage). */
export function parseAdminToken(text: string): string | undefined {
  const token = text.trim();
  return TOKEN.test(token) ? token : undefined;
}
