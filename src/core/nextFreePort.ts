/**
 * The next free TCP port after a taken one, as the receiver's Use Another Port promises (README,
 * "The explorer"): 8787 taken gives 8788 when it is free, else 8789, and so on.
 */
import * as net from 'node:net';

/** Whether `port` can be listened on at `host` now (bound, then closed at once). */
export function isFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/**
 * The first port after `taken` free at `host`, passing over `skip` (another port of the
 * receiver's own, as the render emulator's); throws when none is free below 65536 within `tries`.
 */
export async function nextFreePort(host: string, taken: number, skip: readonly number[] = [], tries = 100): Promise<number> {
  for (let port = taken + 1; port <= Math.min(65_535, taken + tries); port++) {
    if (!skip.includes(port) && (await isFree(host, port))) return port;
  }
  throw new Error(`no free port on ${host} among the ${tries} after ${taken}: set hookbench.receiver.port (0 picks any free one)`);
}
