/**
 * What `hookbench serve` prints for whoever started it (the extension, the tests, a script), each
 * line declared once: its format for the CLI that writes it, its parse for those that read it.
 *
 * On standard output, one line each, in this order: the admin API's protocol version
 * (adminProtocol.ts); the Browser Rendering emulator's address and, when serve chose it, its
 * token; where a browser signs in under `--require-token`; and last `listening on`, once requests may be sent
 * (serve listens for SIGTERM before it says so). A reader takes the lines it knows and passes
 * over the others, so a line added before `listening on` leaves older readers working.
 * On standard error, among the log lines, the one line of a start that failed in a way the
 * extension offers a way out of: the port is taken (Use Another Port), or the data folder is held
 * by another live serve (Take Over).
 */
import { parseProtocolVersion, type StatedProtocol } from './adminProtocol';
import { RENDER_TOKEN_ENV } from './serveEnvironment';

/** `listening on <url>`: the receiver's base URL, `http://HOST:PORT`. */
export const listeningLine = (url: string): string => `listening on ${url}`;
const LISTENING_LINE = /^listening on (http:\/\/\S+)$/;

/** The receiver's base URL, when `line` is the listening line. */
export function listeningUrl(line: string): string | undefined {
  return LISTENING_LINE.exec(line)?.[1];
}

/** `admin protocol <version>`: the admin API's protocol version; before `listening on`. */
export const protocolLine = (version: number): string => `admin protocol ${version}`;
const PROTOCOL_LINE = /^admin protocol (\S+)$/;

/** The version stated, when `line` is the protocol line (undefined for another line, or a version that is not one). */
export function protocolVersion(line: string): StatedProtocol {
  const stated = PROTOCOL_LINE.exec(line)?.[1];
  return stated === undefined ? undefined : parseProtocolVersion(stated);
}

/** `render on <url>`: the emulator's API base, `http://HOST:PORT/client/v4`; before `listening on`. */
export const renderLine = (url: string): string => `render on ${url}`;
const RENDER_LINE = /^render on (http:\/\/\S+)$/;

/** The emulator's API base, when `line` is the render line. */
export function renderUrl(line: string): string | undefined {
  return RENDER_LINE.exec(line)?.[1];
}

/** `render token <token> (…)`: printed only when serve made the token up. */
export const renderTokenLine = (token: string): string => `render token ${token} (set ${RENDER_TOKEN_ENV} to choose it)`;
const RENDER_TOKEN_LINE = new RegExp(`^render token (\\S+) \\(set ${RENDER_TOKEN_ENV} to choose it\\)$`);

/** The token serve made up, when `line` is the render token line. */
export function renderToken(line: string): string | undefined {
  return RENDER_TOKEN_LINE.exec(line)?.[1];
}

/** `--require-token: …`: the private file holding the URL a browser signs in with once. */
export const loginFileLine = (file: string): string => `--require-token: browsers sign in once with the URL in ${file}`;
const LOGIN_FILE_LINE = /^--require-token: browsers sign in once with the URL in (.+)$/;

/** The login URL's file, when `line` says where it is. */
export function loginFile(line: string): string | undefined {
  return LOGIN_FILE_LINE.exec(line)?.[1];
}

/** The receiver's port is taken; the line names the flag that picks another. */
export const portInUseMessage = (host: string, port: string): string =>
  `port ${port} on ${host} is in use by another program: choose another with --port (--port 0 picks a free one)`;
const PORT_IN_USE = /port (\d+) on (\S+) is in use by another program/;

/** The port that was taken, when `text` (a line, or the tail of standard error) says so. */
export function portInUse(text: string): { readonly host: string; readonly port: number } | undefined {
  const match = PORT_IN_USE.exec(text);
  return match ? { host: match[2]!, port: Number(match[1]) } : undefined;
}

/** The data folder's lock is held by another live serve: `stop it, or …` for the CLI's user. */
export const folderInUseMessage = (dataDir: string, pid: number, lockFile: string): string =>
  `the data folder ${dataDir} is in use by another hookbench serve (pid ${pid}): stop it, or give this one its own folder with --data. If no hookbench is running, delete ${lockFile}.`;
const FOLDER_IN_USE = /data folder (.+?) is in use by another hookbench serve \(pid (\d+)\)/;

/** The folder and the pid its lock names, when `text` (a line, or the tail of standard error) says it is held. */
export function folderInUse(text: string): { readonly folder: string; readonly pid: number } | undefined {
  const match = FOLDER_IN_USE.exec(text);
  return match ? { folder: match[1]!, pid: Number(match[2]) } : undefined;
}
