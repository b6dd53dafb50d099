/**
 * An incremental parser for Server-Sent Events (WHATWG HTML, "Parsing an event stream"): lines
 * end in CRLF, LF or CR, even across chunk boundaries; `data` lines join with LF; a blank line
 * dispatches; comments (`:`) and unknown fields are ignored; an event cut off by the end of the
 * stream is never dispatched.
 */

export interface SseEvent {
  /** `message` when the event had no `event:` line. */
  readonly type: string;
  readonly data: string;
  /** The last event id seen on this stream (ids carry over to later events until changed). */
  readonly id: string;
}

export class SseParser {
  private readonly decoder = new TextDecoder('utf-8');
  private buffer = '';
  private started = false;
  private skipLf = false;
  private type = '';
  private data: string[] = [];
  private lastId = '';

  /** Feeds a chunk of the body; returns the events it completed, in order. */
  feed(chunk: Uint8Array): SseEvent[] {
    let text = this.decoder.decode(chunk, { stream: true });
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (this.skipLf && text.startsWith('\n')) text = text.slice(1);
    this.skipLf = false;
    this.buffer += text;
    const events: SseEvent[] = [];
    let start = 0;
    for (let i = 0; i < this.buffer.length; i++) {
      const ch = this.buffer[i];
      if (ch !== '\n' && ch !== '\r') continue;
      const event = this.line(this.buffer.slice(start, i));
      if (event) events.push(event);
      if (ch === '\r') {
        if (i + 1 < this.buffer.length) {
          if (this.buffer[i + 1] === '\n') i++;
        } else this.skipLf = true; // the LF of a CRLF may be in the next chunk
      }
      start = i + 1;
    }
    this.buffer = this.buffer.slice(start);
    return events;
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
    return undefined;
  }

  private dispatch(): SseEvent | undefined {
    const { type, data } = this;
    this.type = '';
    this.data = [];
    if (data.length === 0) return undefined;
    return { type: type || 'message', data: data.join('\n'), id: this.lastId };
  }
}
