// The event-stream parser, against the WHATWG rules smee.io's stream relies on: the same events
// however the chunks cut the bytes, and a bound on what one event may hold.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_SSE_EVENT, SseParser, type SseEvent } from '../../../../src/core/expose/sse';

const bytes = (text: string) => Buffer.from(text, 'utf8');

function parseChunks(chunks: (string | Buffer)[]): SseEvent[] {
  const parser = new SseParser();
  return chunks.flatMap((chunk) => parser.feed(typeof chunk === 'string' ? bytes(chunk) : chunk));
}

describe('SseParser', () => {
  it("reads smee.io's stream: ready, a message without an event line, a ping", () => {
    const events = parseChunks(['id: 0\nevent: ready\ndata: {}\n\nid: 1\ndata: {"a":1}\n\nid: 2\nevent: ping\ndata: {}\n\n']);
    assert.deepEqual(events, [
      { type: 'ready', data: '{}', id: '0' },
      { type: 'message', data: '{"a":1}', id: '1' },
      { type: 'ping', data: '{}', id: '2' },
    ]);
  });

  it("joins data lines with LF and keeps a value's spaces after the first", () => {
    assert.deepEqual(parseChunks(['data: one\ndata:  two\ndata\n\n']), [{ type: 'message', data: 'one\n two\n', id: '' }]);
  });

  it('ends lines at CRLF, LF or CR, even when a CRLF is split across chunks', () => {
    const events = parseChunks(['data: a\r', '\ndata: b\r\n\r', '\ndata: c\rdata: d\r\r']);
    assert.deepEqual(
      events.map((e) => e.data),
      ['a\nb', 'c\nd'],
    );
  });

  it('decodes UTF-8 split across chunks', () => {
    const text = bytes('data: {"name":"zoë ✓"}\n\n');
    const cut = text.indexOf(0xc3) + 1;
    assert.deepEqual(
      parseChunks([text.subarray(0, cut), text.subarray(cut)]).map((e) => e.data),
      ['{"name":"zoë ✓"}'],
    );
  });

  it('ignores comments, unknown fields, a leading BOM and blank-line runs with no data', () => {
    const events = parseChunks(['\ufeff: keep-alive\nretry: 10\nfoo: bar\n\n\n\nevent: x\n\ndata: y\n\n']);
    assert.deepEqual(events, [{ type: 'message', data: 'y', id: '' }]);
  });

  it('carries the last id to later events, and ignores an id with NUL', () => {
    const events = parseChunks(['id: 7\ndata: a\n\ndata: b\n\nid: 8\u0000\ndata: c\n\n']);
    assert.deepEqual(
      events.map((e) => e.id),
      ['7', '7', '7'],
    );
  });

  it('never dispatches an event the stream cut off', () => {
    assert.deepEqual(parseChunks(['data: whole\n\ndata: cut off']), [{ type: 'message', data: 'whole', id: '' }]);
  });

  it('parses the same events whatever the split: at every byte of the stream, and one byte at a time', () => {
    const stream = bytes(
      '\ufeff: hi\r\nid: 1\r\nevent: ready\r\ndata: {}\r\n\r\ndata: {"name":"zoë ✓ 😀"}\rdata: second\r\rid: 2\ndata:x\n\nretry: 5\n: c\n\nevent: ping\ndata\n\ndata: cut',
    );
    const whole = parseChunks([stream]);
    assert.equal(whole.length, 4);
    for (let cut = 0; cut <= stream.length; cut++) {
      assert.deepEqual(parseChunks([stream.subarray(0, cut), stream.subarray(cut)]), whole, `cut at byte ${cut}`);
    }
    assert.deepEqual(parseChunks([...stream].map((byte) => Buffer.from([byte]))), whole);
  });

  it('stops at an event or a line past its bound, says so, and reads nothing after', () => {
    const line = new SseParser(100);
    assert.deepEqual(line.feed(bytes('data: ok\n\n')), [{ type: 'message', data: 'ok', id: '' }]);
    for (let i = 0; i < 9; i++) line.feed(bytes('x'.repeat(10)));
    assert.equal(line.failure, undefined, '90 characters of a line: within the bound');
    line.feed(bytes('x'.repeat(11)));
    assert.equal(line.failure, 'the stream sent an event or a line over 100 characters');
    assert.deepEqual(line.feed(bytes('\n\ndata: after\n\n')), []);

    const event = new SseParser(100);
    const events = event.feed(bytes(`data: first\n\n${'data: 1234567890\n'.repeat(6)}`));
    assert.deepEqual(
      events.map((e) => e.data),
      ['first'],
      'what came before is still dispatched',
    );
    assert.match(event.failure ?? '', /over 100 characters/, 'six data lines of 17: over 100');
    assert.equal(new SseParser().failure, undefined);
    assert.equal(MAX_SSE_EVENT, 32 * 1024 * 1024);
  });
});
