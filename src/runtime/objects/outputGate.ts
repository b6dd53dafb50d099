/**
 * The output gate of a Durable Object: a message (WebSocket frame, RPC reply, broadcast) produced
 * after a write is held until that write is durable, so no client ever sees something that a
 * crash could take back. Messages keep their order.
 */
import type { DurableDatabase } from '../storage/durableDatabase';

export class OutputGate {
  private held: { after: number; send: () => void }[] = [];
  private committing = false;

  constructor(
    private readonly db: DurableDatabase,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Runs `send` now when nothing it could depend on is still in flight, or once it is durable. */
  send(send: () => void): void {
    const after = this.db.writeCount;
    if (this.held.length === 0 && after <= this.db.durableWriteCount) {
      send();
      return;
    }
    this.held.push({ after, send });
    this.commitSoon();
  }

  private commitSoon(): void {
    if (this.committing) return;
    this.committing = true;
    // One commit for everything written in this turn of the event loop.
    setImmediate(() => {
      this.db.commit().then(
        () => {
          this.committing = false;
          this.release();
        },
        (error: unknown) => {
          this.committing = false;
          this.held = [];
          this.onError(error);
        },
      );
    });
  }

  private release(): void {
    const durable = this.db.durableWriteCount;
    while (this.held.length > 0 && this.held[0]!.after <= durable) this.held.shift()!.send();
    if (this.held.length > 0) this.commitSoon();
  }
}
