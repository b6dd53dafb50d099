/**
 * An incremental parser for Server-Sent Events (WHATWG HTML, "Parsing an event stream"): lines
 * end in CRLF, LF or CR, even across chunk boundaries; `data` lines join with LF; a blank line
 * dispatches; comments (`:`) and unknown fields are ignored; an event cut off by the end of the
 * stream is never dispatched. Each character is scanned once, however the chunks cut the lines,
 * and an event (or a line) past a bound stops the parser instead of growing without end.
 */

export interface SseEvent {
  /** `message` when the event had no `event:` line. */
  readonly type: string;
  readonly data: string;
  /** The last event id seen on this stream (ids carry over to later events until changed). */
  readonly id: string;
}

/**
 * The most an event may hold, in characters: its fields and lines so far plus the line being read.
 * smee.io's events carry a webhook's body, which the receiver takes up to 25 MiB, with its headers
 * and JSON's escapes on top; a stream that sends more (or a line that never ends) is broken or
 * hostile, and is closed rather than held in memory (docs/security.md, Bounds).
 */
export const MAX_SSE_EVENT = 32 * 1024 * 1024;

export class SseParser {
  private readonly decoder = new TextDecoder('utf-8');
  /** The line being read, in the pieces the chunks brought: each character is looked at once. */
  private partial: string[] = [];
  private partialLength = 0;
  /** Characters of the event being built, from its complete lines. */
  private eventLength = 0;
  private started = false;
  private skipLf = false;
  private type = '';
  private data: string[] = [];
  private lastId = '';
  private failed: string | undefined;

  constructor(private readonly maxEvent = MAX_SSE_EVENT) {}

  /** Why the parser stopped: an event or a line over `maxEvent`; it reads nothing more. */
  get failure(): string | undefined {
    return this.failed;
  }

  /** Feeds a chunk of the body; returns the events it completed, in order. */
  feed(chunk: Uint8Array): SseEvent[] {
    if (this.failed) return [];
    let text = this.decoder.decode(chunk, { stream: true });
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (this.skipLf && text.startsWith('\n')) text = text.slice(1);
    this.skipLf = false;
    const events: SseEvent[] = [];
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const ch = text.charCodeAt(i);
      if (ch !== 0x0a && ch !== 0x0d) continue;
      const tail = text.slice(start, i);
      const line = this.partial.length === 0 ? tail : this.partial.join('') + tail;
      this.partial = [];
      this.partialLength = 0;
      if (this.tooLarge(line.length)) return events;
      const event = this.line(line);
      if (event) events.push(event);
      if (ch === 0x0d) {
        if (i + 1 < text.length) {
          if (text.charCodeAt(i + 1) === 0x0a) i++;
        } else this.skipLf = true; // the LF of a CRLF may be in the next chunk
      }
      start = i + 1;
    }
    if (start < text.length) {
      this.partial.push(text.slice(start));
      this.partialLength += text.length - start;
    }
    this.tooLarge(this.partialLength);
    return events;
  }

  /** Whether the event with `more` characters would pass the bound; if so the parser stops. */
  private tooLarge(more: number): boolean {
    if (this.eventLength + more <= this.maxEvent) return false;
    this.failed = `the stream sent an event or a line over ${formatSize(this.maxEvent)}`;
    this.partial = [];
    this.data = [];
    return true;
  }

  private line(line: string): SseEvent | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.type = value;
    else if (field === 'data') this.data.push(value);
    else if (field === 'id' && !value.includes('\0')) this.lastId = value;
    else return undefined;
    this.eventLength += line.length + 1;
    return undefined;
  }

  private dispatch(): SseEvent | undefined {
    const { type, data } = this;
    this.type = '';
    this.data = [];
    this.eventLength = 0;
    if (data.length === 0) return undefined;
    return { type: type || 'message', data: data.join('\n'), id: this.lastId };
  }
}

const formatSize = (chars: number): string => (chars % (1024 * 1024) === 0 ? `${chars / (1024 * 1024)} MiB` : `${chars} characters`);
