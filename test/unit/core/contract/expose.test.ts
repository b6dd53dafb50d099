import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { exposeFailure, exposeFailureLine } from '../../../../src/core/contract/expose';

describe('expose failure lines', () => {
  it('read back the why, without the command-line way out', () => {
    const line = exposeFailureLine('smee', 'could not reach https://smee.io to create a smee channel (ENOTFOUND): check the network', '--channel URL');
    assert.equal(line, 'hookbench expose smee: could not reach https://smee.io to create a smee channel (ENOTFOUND): check the network; or give --channel URL');
    assert.equal(exposeFailure(line), 'could not reach https://smee.io to create a smee channel (ENOTFOUND): check the network');
  });

  it('keep a why that has no way out as it is', () => {
    assert.equal(
      exposeFailure(exposeFailureLine('ngrok', 'NGROK_AUTHTOKEN is not set; or set it with Set ngrok Authtoken')),
      'NGROK_AUTHTOKEN is not set; or set it with Set ngrok Authtoken',
    );
    assert.equal(exposeFailure('some other line'), 'some other line');
  });
});
