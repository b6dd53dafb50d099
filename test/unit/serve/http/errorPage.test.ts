import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { acceptsErrorPage, errorPage } from '../../../../src/serve/http/errorPage';

describe("an uncaught exception's answer, as wrangler dev chooses it", () => {
  it('is the HTML page when Accept names text/html, text/* or */* and the client is not curl', () => {
    assert.equal(acceptsErrorPage({ accept: 'text/html,*/*;q=0.8', 'user-agent': 'Mozilla/5.0' }), true);
    assert.equal(acceptsErrorPage({ accept: 'text/*', 'user-agent': 'node' }), true);
    assert.equal(acceptsErrorPage({ accept: '*/*' }), true);
    assert.equal(acceptsErrorPage({ accept: '*/*', 'user-agent': 'curl/8.5.0' }), false);
    assert.equal(acceptsErrorPage({ accept: 'application/json' }), false);
    assert.equal(acceptsErrorPage({}), false);
  });

  it('shows the error and its stack, escaped', () => {
    const error = new TypeError('bad <input>');
    const page = errorPage(error, 'GET', 'http://127.0.0.1:8787/api?x=<y>');
    assert.match(page, /<h1>TypeError: bad &#60;input&#62;<\/h1>/);
    assert.match(page, /GET http:\/\/127\.0\.0\.1:8787\/api\?x=&#60;y&#62;/);
    assert.ok(page.includes('at '), 'the stack');
  });
});
