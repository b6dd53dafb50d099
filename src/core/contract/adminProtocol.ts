/**
 * The admin API's protocol version (docs/admin-api.md, "Protocol version"): which shapes of the
 * route table (admin.ts) and the live feed (live.ts) a serve answers with. A serve states it in its
 * handshake (serveHandshake.ts) and in its admin token file (adminTokenFile.ts); the extension
 * talks only to a serve that states its own, so a serve of another hookbench version (a terminal's
 * left running across an update) is refused in one line instead of answering in shapes the
 * extension reads wrongly.
 *
 * Raise it with any change an older client or serve would misread: a route or live message
 * removed or renamed, a field removed, renamed or given another type. A field or route added does
 * not need it: readers leave unknown fields behind.
 */
export const ADMIN_PROTOCOL_VERSION = 1;

/** What a serve stated: a version, or none (a serve from before versions were stated). */
export type StatedProtocol = number | undefined;

/** A serve that states another admin protocol than this process speaks. */
export class ProtocolMismatchError extends Error {
  constructor(
    /** "the hookbench serve of pid 4242", as the line names it. */
    readonly serve: string,
    readonly stated: StatedProtocol,
    /** What the user does about it. */
    remedy: string,
  ) {
    const speaks = stated === undefined ? 'states no admin protocol (a hookbench from before it was stated)' : `speaks admin protocol ${stated}`;
    super(`${serve} ${speaks}, and this extension speaks ${ADMIN_PROTOCOL_VERSION}: ${remedy}`);
  }
}

/** Throws ProtocolMismatchError unless `stated` is this process's version. */
export function expectProtocol(serve: string, stated: StatedProtocol, remedy: string): void {
  if (stated !== ADMIN_PROTOCOL_VERSION) throw new ProtocolMismatchError(serve, stated, remedy);
}

/** A version as a line or a file gives it: a whole number from 1, else undefined. */
export function parseProtocolVersion(value: unknown): StatedProtocol {
  const version = typeof value === 'string' && /^[1-9]\d{0,5}$/.test(value) ? Number(value) : value;
  return typeof version === 'number' && Number.isSafeInteger(version) && version >= 1 ? version : undefined;
}
