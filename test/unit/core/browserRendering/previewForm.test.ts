// The preview form's check: what the webview disables Render for, and what the extension refuses
// before it calls the emulator (a webview's messages are untrusted).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkForm, DEFAULT_PREVIEW_FORM, problemsText } from '../../../../src/core/browserRendering/previewForm';
import type { PreviewForm } from '../../../../src/core/browserRendering/previewProtocol';

const fields = (form: unknown) => checkForm(form).problems.map((p) => p.field);
const html = (changes: Partial<Record<keyof PreviewForm, unknown>>) => ({ ...DEFAULT_PREVIEW_FORM, ...changes });

describe('the preview form check', () => {
  it('passes the default form as it is', () => {
    assert.deepEqual(checkForm(DEFAULT_PREVIEW_FORM), { form: DEFAULT_PREVIEW_FORM, problems: [] });
  });

  it('wants a viewport side to be a whole number from 1 to 16384', () => {
    assert.deepEqual(checkForm(html({ width: 0 })).problems, [{ field: 'width', message: 'a whole number from 1 to 16384' }]);
    assert.deepEqual(fields(html({ width: 16_385 })), ['width']);
    assert.deepEqual(fields(html({ height: 12.5 })), ['height']);
    // A blank field reads as NaN, which JSON carries as null.
    assert.deepEqual(fields(JSON.parse(JSON.stringify(html({ width: NaN })))), ['width']);
    assert.deepEqual(fields(html({ width: 16_384, height: 1 })), []);
  });

  it('refuses a capture over the emulator’s bitmap limit, naming its size', () => {
    const [problem] = checkForm(html({ width: 16_384, height: 16_384 })).problems;
    assert.equal(problem?.field, 'height');
    assert.match(problem!.message, /16384×16384 at 1× is 268 megapixels; a capture has at most 100/);
  });

  it('wants a web URL for a URL page, and HTML for an HTML page', () => {
    assert.deepEqual(checkForm(html({ source: 'url', url: '  ' })).problems, [{ field: 'url', message: 'enter the URL of the page' }]);
    assert.deepEqual(checkForm(html({ source: 'url', url: 'example dot com' })).problems, [{ field: 'url', message: '"example dot com" is not a URL' }]);
    assert.match(checkForm(html({ source: 'url', url: 'file:///etc/passwd' })).problems[0]!.message, /only https, http URLs \(not file:\)/);
    assert.deepEqual(checkForm(html({ html: ' \n ' })).problems, [{ field: 'html', message: 'enter some HTML' }]);
    // The other source's field does not matter.
    assert.deepEqual(fields(html({ source: 'url', url: 'https://example.com/', html: '' })), []);
  });

  it('wants a source for a custom font, a well-formed one, and a font file’s absolute path', () => {
    const custom = (changes: Partial<Record<keyof PreviewForm, unknown>>) => html({ font: 'custom', customFamily: 'Brand', ...changes });
    assert.deepEqual(checkForm(custom({})).problems, [{ field: 'customSource', message: 'choose a font URL or a font file' }]);
    assert.deepEqual(fields(custom({ customSource: { kind: 'url', url: 'not a url' } })), ['customSource']);
    assert.deepEqual(fields(custom({ customSource: { kind: 'url', url: 'ftp://fonts.example/brand.woff2' } })), ['customSource']);
    assert.deepEqual(fields(custom({ customSource: { kind: 'file', path: '/etc/passwd', name: 'brand.ttf' } })), ['customSource']);
    assert.deepEqual(fields(custom({ customSource: { kind: 'file', path: 'fonts/brand.ttf', name: 'brand.ttf' } })), ['customSource']);
    assert.deepEqual(fields(custom({ customSource: { kind: 'file', path: '/home/me/brand.ttf', name: 'brand.ttf' } })), []);
    assert.deepEqual(fields(custom({ customFamily: 'a;b', weight: 'heavy', customSource: { kind: 'url', url: 'https://fonts.example/brand.woff2' } })), [
      'customFamily',
      'weight',
    ]);
    // Without the custom font chosen, its fields do not stop a render.
    assert.deepEqual(fields(html({ font: '', customFamily: 'a;b' })), []);
  });

  it('refuses what the webview could not have sent, without a form to render', () => {
    assert.deepEqual(checkForm('render me'), { problems: [{ field: 'source', message: 'no form' }] });
    const odd = checkForm(html({ source: 'javascript', endpoint: 'json', fallback: 'wingdings' }));
    assert.equal(odd.form, undefined);
    assert.deepEqual(
      odd.problems.map((p) => p.field),
      ['source', 'endpoint', 'fallback'],
    );
  });

  it('keeps the HTML file a form came from only while it shows HTML', () => {
    assert.equal(checkForm(html({ htmlFile: 'file:///w/invoice.html' })).form?.htmlFile, 'file:///w/invoice.html');
    assert.equal(checkForm(html({ source: 'url', htmlFile: 'file:///w/invoice.html' })).form?.htmlFile, undefined);
  });

  it('says the problems in one line', () => {
    assert.equal(problemsText(checkForm(html({ width: 0, html: '' })).problems), 'HTML: enter some HTML; Width: a whole number from 1 to 16384');
  });
});
