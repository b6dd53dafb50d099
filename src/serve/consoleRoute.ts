import { format } from 'node:util';
import { hasTag, type Logger } from '../core/log';

/**
 * Worker code logs with console.*: those lines join the serve log, tagged [worker] unless they
 * carry a tag of their own (`[security] …`). Returns a
 * function that puts the console back.
 */
export function routeConsole(logger: Logger): () => void {
  const saved = { log: console.log, info: console.info, debug: console.debug, warn: console.warn, error: console.error };
  const line = (args: unknown[]) => {
    const text = format(...args);
    return hasTag(text) ? text : `[worker] ${text}`;
  };
  console.log = console.info = (...args: unknown[]) => logger.info(line(args));
  console.debug = (...args: unknown[]) => logger.debug(line(args));
  console.warn = (...args: unknown[]) => logger.warn(line(args));
  console.error = (...args: unknown[]) => logger.error(line(args));
  return () => Object.assign(console, saved);
}
