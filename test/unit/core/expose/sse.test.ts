// The event-stream parser, against the WHATWG rules smee.io's stream relies on.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SseParser, type SseEvent } from '../../../../src/core/expose/sse';

const bytes = (text: string) => Buffer.from(text, 'utf8');

function parseChunks(chunks: (string | Buffer)[]): SseEvent[] {
  const parser = new SseParser();
  return chunks.flatMap((chunk) => parser.feed(typeof chunk === 'string' ? bytes(chunk) : chunk));
}

describe('SseParser', () => {
  it('reads smee.io\'s stream: ready, a message without an event line, a ping', () => {
    const events = parseChunks(['id: 0\nevent: ready\ndata: {}\n\nid: 1\ndata: {"a":1}\n\nid: 2\nevent: ping\ndata: {}\n\n']);
    assert.deepEqual(events, [
      { type: 'ready', data: '{}', id: '0' },
      { type: 'message', data: '{"a":1}', id: '1' },
      { type: 'ping', data: '{}', id: '2' },
    ]);
  });

  it('joins data lines with LF and keeps a value\'s spaces after the first', () => {
    assert.deepEqual(parseChunks(['data: one\ndata:  two\ndata\n\n']), [{ type: 'message', data: 'one\n two\n', id: '' }]);
  });

  it('ends lines at CRLF, LF or CR, even when a CRLF is split across chunks', () => {
    const events = parseChunks(['data: a\r', '\ndata: b\r\n\r', '\ndata: c\rdata: d\r\r']);
    assert.deepEqual(events.map((e) => e.data), ['a\nb', 'c\nd']);
  });

  it('decodes UTF-8 split across chunks', () => {
    const text = bytes('data: {"name":"zoë ✓"}\n\n');
    const cut = text.indexOf(0xc3) + 1;
    assert.deepEqual(parseChunks([text.subarray(0, cut), text.subarray(cut)]).map((e) => e.data), ['{"name":"zoë ✓"}']);
  });

  it('ignores comments, unknown fields, a leading BOM and blank-line runs with no data', () => {
    const events = parseChunks(['\ufeff: keep-alive\nretry: 10\nfoo: bar\n\n\n\nevent: x\n\ndata: y\n\n']);
    assert.deepEqual(events, [{ type: 'message', data: 'y', id: '' }]);
  });

  it('carries the last id to later events, and ignores an id with NUL', () => {
    const events = parseChunks(['id: 7\ndata: a\n\ndata: b\n\nid: 8\u0000\ndata: c\n\n']);
    assert.deepEqual(events.map((e) => e.id), ['7', '7', '7']);
  });

  it('never dispatches an event the stream cut off', () => {
    assert.deepEqual(parseChunks(['data: whole\n\ndata: cut off']), [{ type: 'message', data: 'whole', id: '' }]);
  });
});
