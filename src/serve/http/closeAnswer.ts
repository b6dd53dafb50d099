/**
 * A peer's close frame answered by the worker, as workerd does for hibernatable WebSockets: `ws`
 * echoes a close frame at once (it calls `close()` on the socket from its frame parser); here
 * that echo is held, the worker hears the close when the frame arrives (`webSocketClose`), and
 * its own `ws.close(code, reason)` is the answer. A worker that does not answer within
 * `ANSWER_WAIT_MS` gets the echo sent for it, so no client hangs.
 */
import type { WebSocket } from 'ws';
import type { SocketHandlers } from '../../runtime/objects/connections';

export const ANSWER_WAIT_MS = 1000;

/** ws 8's own flags on a socket (not in its types): a close frame came / went. */
interface CloseFlags {
  readonly _closeFrameReceived?: boolean;
  readonly _closeFrameSent?: boolean;
}

/**
 * Installs the held echo on `ws`; returns what the receiver calls on the socket's `close` event
 * (the worker is told once, at the frame or, for a dropped connection, at the event).
 */
export function answerCloseByWorker(ws: WebSocket, handlers: SocketHandlers): (code: number, reason: string) => void {
  const close = ws.close.bind(ws);
  const flags = ws as unknown as CloseFlags;
  let told = false;
  let held = false;
  const tell = (code: number, reason: string): void => {
    if (told) return;
    told = true;
    handlers.close(code, reason);
  };
  ws.close = (code?: number, reason?: string | Buffer): void => {
    // The first call after the peer's frame, before any answer, is ws's own echo.
    if (!held && flags._closeFrameReceived && !flags._closeFrameSent) {
      held = true;
      const text = reason === undefined ? '' : reason.toString();
      tell(code ?? 1005, text);
      const fallback = setTimeout(() => {
        if (!flags._closeFrameSent) close(code, reason);
      }, ANSWER_WAIT_MS);
      fallback.unref();
      ws.once('close', () => clearTimeout(fallback));
      return;
    }
    close(code, reason);
  };
  return tell;
}
