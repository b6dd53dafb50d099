/**
 * The socket a worker's WebSocket sends through: the `ws` connection, with frames under 1 KiB sent
 * without permessage-deflate.
 *
 * When context takeover is agreed (the default, and what workerd answers), ws compresses every
 * frame, whatever its size, through zlib on libuv's thread pool, the pool the journal's fdatasync
 * also runs on; and the client inflates it the same way. For a 139-byte `cf_agent_state` frame
 * that is two thread-pool trips, which brought it to the client after the HTTP answer that followed
 * it, to save a few bytes (docs/performance.md, "The answer, the log and the frame").
 * RFC 7692 lets a sender leave any message uncompressed (RSV1 clear), and ws itself does so under
 * this same 1 KiB threshold when context takeover is off. Order is kept: ws queues a plain frame
 * behind one still being compressed.
 */
import type { WebSocket } from 'ws';
import type { Socket } from '../../runtime/objects/hosted';

export const COMPRESS_FROM_BYTES = 1024;

function byteLength(data: string | ArrayBuffer | Uint8Array): number {
  return typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength;
}

export function plainSmallFrames(ws: WebSocket): Socket {
  return {
    send: (data) => ws.send(data, { compress: byteLength(data) >= COMPRESS_FROM_BYTES }),
    close: (code, reason) => ws.close(code, reason),
    get readyState() {
      return ws.readyState;
    },
  };
}
