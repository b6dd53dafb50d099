// How the Bindings routes show a stored value: text when it is UTF-8, base64 otherwise, bounded.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { shownBytes } from '../../../../src/serve/admin/shownBytes';

const utf8 = (text: string) => new TextEncoder().encode(text);

describe('shownBytes', () => {
  it('shows UTF-8 as text and anything else as base64', () => {
    assert.deepEqual(shownBytes(utf8('héllo')), { encoding: 'text', value: 'héllo', size: 6 });
    assert.deepEqual(shownBytes(new Uint8Array([0xc3, 0x28])), { encoding: 'base64', value: 'wyg=', size: 2 });
    assert.deepEqual(shownBytes(new Uint8Array(0)), { encoding: 'text', value: '', size: 0 });
  });

  it('cuts a long value at the bound, never inside a character, and says so', () => {
    // 'é' is two bytes: a cut at 5 bytes falls inside the third one.
    const shown = shownBytes(utf8('ééééé'), 5);
    assert.deepEqual(shown, { encoding: 'text', value: 'éé', size: 10, truncated: true });
    const binary = shownBytes(new Uint8Array(10).fill(0xff), 4);
    assert.deepEqual(binary, { encoding: 'base64', value: Buffer.from([0xff, 0xff, 0xff, 0xff]).toString('base64'), size: 10, truncated: true });
  });
});
