import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { failureEnvelope, RenderError, successEnvelope } from '../../../../src/core/browserRendering/errors';
import { DEFAULT_USER_AGENT, MAX_BITMAP_PIXELS, validateRenderRequest } from '../../../../src/core/browserRendering/request';

function refused(endpoint: string, body: unknown, field: RegExp, status = 400, code?: number): void {
  assert.throws(
    () => validateRenderRequest(endpoint, body),
    (error: unknown) => error instanceof RenderError && error.status === status && field.test(error.message) && (code === undefined || error.code === code),
  );
}

describe('render requests', () => {
  it('fills in Cloudflare’s defaults, not Puppeteer’s', () => {
    const request = validateRenderRequest('screenshot', { url: 'https://example.com' });
    assert.deepEqual(request.gotoOptions, { timeout: 30_000, waitUntil: ['domcontentloaded'] });
    assert.deepEqual(request.viewport, { width: 1920, height: 1080, deviceScaleFactor: 1, isMobile: false, hasTouch: false, isLandscape: false });
    assert.equal(request.userAgent, DEFAULT_USER_AGENT);
    assert.equal(request.screenshotOptions['type'], 'png');
    assert.equal(request.setJavaScriptEnabled, true);
    assert.deepEqual(validateRenderRequest('snapshot', { html: '<p>x</p>' }).formats, ['content', 'screenshot']);
  });

  it('keeps the seed’s addStyleTag font injection as given', () => {
    const css =
      "@font-face { font-family: 'CustomFont'; src: url('data:font/woff2;base64,AAAA') format('woff2'); } body { font-family: 'CustomFont', sans-serif; }";
    const request = validateRenderRequest('pdf', { url: 'https://example.com', addStyleTag: [{ content: css }, { url: 'https://fonts.example.com/css' }] });
    assert.deepEqual(request.addStyleTag, [{ content: css }, { url: 'https://fonts.example.com/css' }]);
  });

  it('needs url or html, one of them, and only web URLs (file:// is 5010)', () => {
    refused('screenshot', {}, /^url: give url or html/);
    refused('screenshot', { url: 'https://a.test', html: '<p>' }, /^html: give url or html, not both/);
    refused('screenshot', { html: '' }, /^html: must not be empty/);
    refused('screenshot', { url: 'not a url' }, /^url: "not a url" is not a URL/);
    refused('screenshot', { url: 'file:///etc/passwd' }, /only http and https/, 400, 5010);
    refused('screenshot', { url: 'chrome://settings' }, /only http and https/, 400, 5010);
  });

  it('names the field that is wrong', () => {
    refused('screenshot', { url: 'https://a.test', screenshotOption: {} }, /^screenshotOption: is not a field of this endpoint/);
    refused('pdf', { url: 'https://a.test', screenshotOptions: {} }, /^screenshotOptions: is not a field/);
    refused('screenshot', { url: 'https://a.test', screenshotOptions: { quality: 80 } }, /^screenshotOptions\.quality: is not compatible with the png type/);
    refused('screenshot', { url: 'https://a.test', gotoOptions: { waitUntil: 'idle' } }, /^gotoOptions\.waitUntil/);
    refused('screenshot', { url: 'https://a.test', gotoOptions: { timeout: 61_000 } }, /^gotoOptions\.timeout: must be a number from 0 to 60000/);
    refused('screenshot', { url: 'https://a.test', waitForTimeout: -1 }, /^waitForTimeout/);
    refused('screenshot', { url: 'https://a.test', viewport: { width: '800' } }, /^viewport\.width/);
    refused('screenshot', { url: 'https://a.test', addStyleTag: [{ content: 'a', url: 'b' }] }, /^addStyleTag\[0\]: give exactly one of content or url/);
    refused('screenshot', { url: 'https://a.test', addScriptTag: [{}] }, /^addScriptTag\[0\]: give exactly one/);
    refused('screenshot', { url: 'https://a.test', rejectResourceTypes: ['pictures'] }, /^rejectResourceTypes: "pictures" is not a resource type/);
    refused('screenshot', { url: 'https://a.test', rejectRequestPattern: ['/(unclosed/'] }, /^rejectRequestPattern: .* is not a regular expression/);
    refused('screenshot', { url: 'https://a.test', setExtraHTTPHeaders: { 'x-a': 1 } }, /^setExtraHTTPHeaders\.x-a: must be a string/);
    refused('screenshot', { url: 'https://a.test', cookies: [{ name: 'a' }] }, /^cookies: must be an array of \{name, value/);
    refused('screenshot', { url: 'https://a.test', emulateMediaType: 'tv' }, /^emulateMediaType: is screen or print/);
    refused('pdf', { url: 'https://a.test', pdfOptions: { format: 'A9' } }, /^pdfOptions\.format/);
    refused('pdf', { url: 'https://a.test', pdfOptions: { scale: 3 } }, /^pdfOptions\.scale: must be a number from 0\.1 to 2/);
    refused('snapshot', { url: 'https://a.test', formats: ['content'] }, /^formats: request at least two formats/);
    refused('scrape', { url: 'https://a.test' }, /^elements: must be a non-empty array/);
    refused('shot', { url: 'https://a.test' }, /no endpoint "shot"/, 404);
    refused('screenshot', 'not an object', /^body: must be an object/);
  });

  it('accepts the FAQ’s goToOptions spelling as gotoOptions', () => {
    assert.deepEqual(
      validateRenderRequest('content', { url: 'https://a.test', goToOptions: { waitUntil: ['load', 'networkidle0'], timeout: 5000 } }).gotoOptions,
      { timeout: 5000, waitUntil: ['load', 'networkidle0'] },
    );
  });

  it('takes every documented common field', () => {
    const request = validateRenderRequest('screenshot', {
      url: 'https://a.test',
      gotoOptions: { waitUntil: 'networkidle2', timeout: 10_000, referer: 'https://ref.test' },
      waitForSelector: { selector: '#ready', visible: true },
      waitForTimeout: 500,
      actionTimeout: 120_000,
      viewport: { width: 800, height: 600, deviceScaleFactor: 2 },
      userAgent: 'UA',
      setExtraHTTPHeaders: { 'x-test': '1' },
      cookies: [{ name: 'a', value: 'b', domain: 'a.test' }],
      authenticate: { username: 'u', password: 'p' },
      rejectResourceTypes: ['image'],
      allowRequestPattern: ['/^https:\\/\\/a\\.test/'],
      emulateMediaType: 'print',
      bestAttempt: true,
      setJavaScriptEnabled: false,
      screenshotOptions: { type: 'jpeg', quality: 80, fullPage: true },
      selector: 'main',
      scrollPage: true,
    });
    assert.equal(request.waitForSelector!.timeout, 30_000);
    assert.equal(request.viewport.deviceScaleFactor, 2);
    assert.deepEqual(request.authenticate, { username: 'u', password: 'p' });
    assert.equal(request.screenshotOptions['quality'], 80);
  });

  it('refuses a viewport whose bitmap (width × height × deviceScaleFactor²) passes 100 megapixels, naming the limit', () => {
    assert.equal(MAX_BITMAP_PIXELS, 100_000_000);
    refused(
      'screenshot',
      { url: 'https://a.test', viewport: { width: 16_384, height: 16_384 } },
      /^viewport: 16384×16384 px at scale 1 is 268\.4 megapixels; a bitmap is limited to 100 megapixels/,
      400,
      400,
    );
    refused(
      'pdf',
      { url: 'https://a.test', viewport: { width: 1920, height: 1080, deviceScaleFactor: 10 } },
      /^viewport: .* is 207\.4 megapixels; a bitmap is limited to 100 megapixels/,
      400,
      400,
    );
  });

  it('accepts a full HD viewport at scale 2', () => {
    assert.deepEqual(validateRenderRequest('screenshot', { url: 'https://a.test', viewport: { width: 1920, height: 1080, deviceScaleFactor: 2 } }).viewport, {
      width: 1920,
      height: 1080,
      deviceScaleFactor: 2,
      isMobile: false,
      hasTouch: false,
      isLandscape: false,
    });
  });

  it('bounds a screenshot clip by its own scale times the device scale factor', () => {
    refused(
      'screenshot',
      { url: 'https://a.test', viewport: { deviceScaleFactor: 2 }, screenshotOptions: { clip: { x: 0, y: 0, width: 5000, height: 5000, scale: 2 } } },
      /^screenshotOptions\.clip: 5000×5000 px at scale 4 is 400 megapixels; a bitmap is limited to 100 megapixels/,
    );
    refused(
      'screenshot',
      { url: 'https://a.test', screenshotOptions: { clip: { x: 0, y: 0, width: '10', height: 10 } } },
      /^screenshotOptions\.clip\.width: must be a number above 0/,
    );
    assert.ok(validateRenderRequest('screenshot', { url: 'https://a.test', screenshotOptions: { clip: { x: 0, y: 0, width: 1920, height: 10_000 } } }));
  });
});

describe('envelopes', () => {
  it('are Cloudflare’s v4 shapes', () => {
    assert.deepEqual(failureEnvelope(new RenderError(401, 10000, 'Authentication failed')), {
      success: false,
      errors: [{ code: 10000, message: 'Authentication failed' }],
      messages: [],
      result: null,
    });
    assert.deepEqual(successEnvelope(['https://a.test']), { success: true, errors: [], messages: [], result: ['https://a.test'] });
  });
});
