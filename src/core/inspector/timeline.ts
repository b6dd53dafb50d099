/**
 * The state timeline's model: the rows of an agent's state history (src/core/contract/timeline.ts)
 * as steps a user walks through, each with the event, the state before and after it, and what it
 * changed.
 */
import type { StateHistoryRow } from '../contract/timeline';
import { diffStates, type StateChange } from './stateDiff';

export interface TimelineStep {
  readonly seq: number;
  readonly eventId: string;
  readonly eventType: string;
  readonly title: string | null;
  readonly at: string;
  readonly before: unknown;
  readonly after: unknown;
  readonly changes: readonly StateChange[];
}

/** A stored JSON text as its value; a text that is not JSON stays the text (and is shown as such). */
function parsed(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The steps, oldest first, from the rows as the history query returns them. */
export function timelineFrom(rows: readonly StateHistoryRow[]): TimelineStep[] {
  return rows.map((row) => {
    const before = parsed(row.before);
    const after = parsed(row.after);
    return {
      seq: Number(row.seq),
      eventId: row.event_id,
      eventType: row.event_type,
      title: row.title,
      at: row.at,
      before,
      after,
      changes: diffStates(before, after),
    };
  });
}

/** The step index after moving by `delta` from `index`, kept inside the timeline. */
export function step(index: number, delta: number, length: number): number {
  if (length === 0) return 0;
  return Math.min(length - 1, Math.max(0, index + delta));
}
