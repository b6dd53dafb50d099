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
