/** The errors of reading a wrangler config: what the extension and serve both say of a config. */

/** A wrangler config Hookbench cannot run: its one line names the file and the key. */
export class ConfigError extends Error {
  override readonly name: string = 'ConfigError';
}

/** The config asks for something Hookbench does not emulate (a key of worker/support.ts's table). */
export class UnsupportedConfigError extends ConfigError {
  override readonly name = 'UnsupportedConfigError';
}
