import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { agreeDeflate } from '../../../../src/serve/http/deflateOffer';

// Offer → workerd's answer, recorded from workerd 2026-04-26 under wrangler dev 4.86.0 (the
// differential suite's routing area compares them live).
const RECORDED: readonly [string, string | undefined][] = [
  ['permessage-deflate', 'permessage-deflate'],
  ['permessage-deflate; client_max_window_bits', 'permessage-deflate; client_max_window_bits=15'],
  ['permessage-deflate; client_no_context_takeover; server_max_window_bits=10', 'permessage-deflate; client_no_context_takeover; server_max_window_bits=10'],
  [
    'permessage-deflate; client_max_window_bits; server_max_window_bits=15; client_no_context_takeover; server_no_context_takeover',
    'permessage-deflate; client_no_context_takeover; server_no_context_takeover; client_max_window_bits=15; server_max_window_bits=15',
  ],
  ['permessage-deflate; server_max_window_bits=7, permessage-deflate; client_max_window_bits', 'permessage-deflate; client_max_window_bits=15'],
  ['permessage-deflate; client_max_window_bits=08', 'permessage-deflate; client_max_window_bits=8'],
  ['permessage-deflate; client_max_window_bits=+9', 'permessage-deflate; client_max_window_bits=9'],
  ['permessage-deflate; client_max_window_bits = 10', 'permessage-deflate; client_max_window_bits=10'],
  [' permessage-deflate ;  server_no_context_takeover , x', 'permessage-deflate; server_no_context_takeover'],
  ['foo, permessage-deflate', 'permessage-deflate'],
  ['permessage-deflate; client_max_window_bits="10"', undefined],
  ['permessage-deflate; client_max_window_bits=16', undefined],
  ['permessage-deflate; server_max_window_bits', undefined],
  ['permessage-deflate; server_no_context_takeover; server_no_context_takeover', undefined],
  ['permessage-deflate; server_no_context_takeover=1', undefined],
  ['permessage-deflate; foo=1', undefined],
  ['permessage-deflate;;', undefined],
  ['PerMessage-Deflate', undefined],
  ['x-webkit-deflate-frame', undefined],
];

describe('permessage-deflate agreement (as workerd answers)', () => {
  for (const [offer, answer] of RECORDED) {
    it(`answers ${JSON.stringify(offer)} with ${answer === undefined ? 'no extension' : JSON.stringify(answer)}`, () => {
      assert.equal(agreeDeflate(offer), answer);
    });
  }

  it('answers no offer with no extension', () => {
    assert.equal(agreeDeflate(undefined), undefined);
    assert.equal(agreeDeflate(''), undefined);
  });
});
