/** An admin API failure with the status it answers (`{"error": message}`). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** A percent-encoded path segment, decoded; 404 when missing, 400 when not valid encoding. */
export function decodeSegment(segment: string | undefined, what: string): string {
  if (segment === undefined || segment === '') throw new HttpError(404, `missing ${what}`);
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new HttpError(400, `${what} is not valid percent-encoding`);
  }
}
