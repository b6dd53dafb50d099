/** An SQL statement failed; `query` is the statement, as the SDK's SqlError carries it. */
export class SqlError extends Error {
  override readonly name = 'SqlError';
  constructor(
    readonly query: string,
    cause: unknown,
  ) {
    super(`SQL query failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/** Stored data failed its checks; nothing was dropped, the file is left as it was for inspection. */
export class StorageCorruptError extends Error {
  override readonly name = 'StorageCorruptError';
  constructor(
    readonly path: string,
    detail: string,
  ) {
    super(`${path}: ${detail}`);
  }
}

/**
 * The disk refused a journal write (full, read-only, failing). Nothing of the failed group was
 * acknowledged; the instance is closed and reopened from what is durable on the next request.
 */
export class StorageWriteError extends Error {
  override readonly name = 'StorageWriteError';
  readonly code: string;
  constructor(cause: unknown) {
    const code = (cause as NodeJS.ErrnoException)?.code ?? 'EIO';
    const what = code === 'ENOSPC' || code === 'EDQUOT' ? 'the disk is full' : code === 'EROFS' ? 'the disk is read-only' : 'the disk refused the write';
    super(`${what} (${code}): this change was not stored; nothing acknowledged is lost, and writes resume once the disk takes them`, { cause });
    this.code = code;
  }
}

/**
 * A request reached an instance that was shut down (the worker reloaded, the server is stopping,
 * the instance was deleted). It did not run; sent again, it reaches the instance's new host.
 */
export class InstanceClosedError extends Error {
  override readonly name = 'InstanceClosedError';
  constructor(readonly instance: string) {
    super(`the instance ${JSON.stringify(instance)} was shut down (the worker reloaded or the server is stopping); the request did not run`);
  }
}
