/**
 * The logger every core component receives. Its shape matches VS Code's `LogOutputChannel`
 * methods so the extension can pass a channel straight through, while the CLI writes to stderr.
 */
export interface Logger {
  trace(message: string): void;
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string | Error): void;
}

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error';

const LEVELS: readonly LogLevel[] = ['trace', 'debug', 'info', 'warn', 'error'];

/** A logger that drops everything, for tests and callers that do not care. */
export const nullLogger: Logger = {
  trace() {},
  debug() {},
  info() {},
  warn() {},
  error() {},
};

/** Whether a message already starts with a component tag such as `[security]`. */
export const hasTag = (message: string): boolean => /^\[[\w-]+\] /.test(message);

/**
 * Prefixes every message with a component tag, as in `[receiver] listening`; a message that
 * already carries one (a line forwarded from the serve process, `[security] …`) keeps its own, so
 * every log line has exactly one tag.
 */
export function tagged(logger: Logger, tag: string): Logger {
  const prefix = `[${tag}] `;
  const tag1 = (m: string) => (hasTag(m) ? m : prefix + m);
  return {
    trace: (m) => logger.trace(tag1(m)),
    debug: (m) => logger.debug(tag1(m)),
    info: (m) => logger.info(tag1(m)),
    warn: (m) => logger.warn(tag1(m)),
    error: (m) => logger.error(tag1(m instanceof Error ? (m.stack ?? m.message) : m)),
  };
}

/**
 * A logger that writes one line per message, `<ISO time> <level> <message>`, to `write`, dropping
 * messages below `minLevel`. The serve process uses it on stderr; the extension parses the lines.
 */
export function lineLogger(write: (line: string) => void, minLevel: LogLevel = 'info', now: () => Date = () => new Date()): Logger {
  const min = LEVELS.indexOf(minLevel);
  const emit = (level: LogLevel, message: string | Error) => {
    if (LEVELS.indexOf(level) < min) return;
    const text = message instanceof Error ? (message.stack ?? message.message) : message;
    write(`${now().toISOString()} ${level} ${text}`);
  };
  return {
    trace: (m) => emit('trace', m),
    debug: (m) => emit('debug', m),
    info: (m) => emit('info', m),
    warn: (m) => emit('warn', m),
    error: (m) => emit('error', m),
  };
}

/** Parses a line written by {@link lineLogger}; `undefined` when the line has another shape. */
export function parseLogLine(line: string): { time: string; level: LogLevel; message: string } | undefined {
  const match = /^(\d{4}-\d\d-\d\dT[\d:.]+Z) (trace|debug|info|warn|error) (.*)$/s.exec(line);
  if (!match) return undefined;
  return { time: match[1]!, level: match[2] as LogLevel, message: match[3]! };
}

/** Passes every message on to `logger` and keeps the newest `size` lines for inspection. */
export function recording(logger: Logger, size = 500): Logger & { lines(): readonly string[] } {
  const kept: string[] = [];
  const keep = (level: LogLevel, message: string | Error) => {
    kept.push(`${level} ${message instanceof Error ? (message.stack ?? message.message) : message}`);
    if (kept.length > size) kept.shift();
  };
  return {
    trace: (m) => (keep('trace', m), logger.trace(m)),
    debug: (m) => (keep('debug', m), logger.debug(m)),
    info: (m) => (keep('info', m), logger.info(m)),
    warn: (m) => (keep('warn', m), logger.warn(m)),
    error: (m) => (keep('error', m), logger.error(m)),
    lines: () => [...kept],
  };
}
