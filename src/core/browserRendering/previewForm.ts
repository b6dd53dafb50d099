/**
 * The preview form's defaults and its check. The webview asks for the check as the user types
 * (to disable Render and say why beside each field), and the extension checks again before it
 * calls the emulator: what a webview sends is untrusted. The limits are the emulator's
 * (`request.ts`), so a form that passes here is never a 400 for its viewport or page.
 */
import type { FieldProblem, PreviewForm } from './previewProtocol';
import { MAX_BITMAP_PIXELS } from './request';

export const MAX_VIEWPORT = 16_384;

export const DEFAULT_PREVIEW_FORM: PreviewForm = {
  source: 'html',
  url: 'https://example.com/',
  html: '<h1>Invoice #1042</h1>\n<p>Thank you for your order. 谢谢 · شكرا · ขอบคุณ 🎉</p>',
  endpoint: 'screenshot',
  width: 1280,
  height: 720,
  scale: 1,
  font: '',
  customFamily: '',
  weight: 'normal',
  style: 'normal',
  fallback: 'sans-serif',
};

const FONT_FILE = /\.(woff2?|ttf|otf)$/i;
const FALLBACKS = ['serif', 'sans-serif', 'monospace', 'cursive', 'fantasy'] as const;

export interface CheckedForm {
  /** The form, when its shape is one (its values may still have problems). */
  readonly form?: PreviewForm;
  readonly problems: FieldProblem[];
}

type Json = Record<string, unknown>;
const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const oneOf = <T extends string>(value: unknown, options: readonly T[]): value is T =>
  typeof value === 'string' && (options as readonly string[]).includes(value);

function webUrl(value: string, schemes: string[]): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return `"${value}" is not a URL`;
  }
  return schemes.includes(parsed.protocol) ? undefined : `only ${schemes.map((s) => s.slice(0, -1)).join(', ')} URLs (not ${parsed.protocol})`;
}

function viewportSide(value: unknown): string | undefined {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_VIEWPORT) return `a whole number from 1 to ${MAX_VIEWPORT}`;
  return undefined;
}

function customSource(raw: unknown): PreviewForm['customSource'] | string {
  if (raw === undefined || raw === null) return 'choose a font URL or a font file';
  const source = raw as Json;
  if (source['kind'] === 'url') {
    const url = text(source['url']).trim();
    if (url === '') return 'choose a font URL or a font file';
    return webUrl(url, ['https:', 'http:', 'data:']) ?? { kind: 'url', url };
  }
  if (source['kind'] === 'file') {
    const path = text(source['path']);
    // The extension reads this path and sends its bytes: only an absolute path to a font file.
    if (!/^(\/|[A-Za-z]:[\\/])/.test(path) || !FONT_FILE.test(path)) return 'choose a .woff2, .woff, .ttf or .otf file';
    return { kind: 'file', path, name: text(source['name']) || path.split(/[\\/]/).pop()! };
  }
  return 'choose a font URL or a font file';
}

/** The font fields' problems; the custom ones only count when the custom font is chosen. */
function fontProblems(form: Json, source: PreviewForm['customSource'] | string, add: (field: FieldProblem['field'], message: string) => void): void {
  const font = text(form['font']);
  if (font !== 'custom') {
    if (font !== '' && /[;{}<>'"\\]/.test(font)) add('font', 'a family name has no ; { } < > quotes or backslashes');
    return;
  }
  if (/[;{}<>]/.test(text(form['customFamily']))) add('customFamily', 'a family name has no ; { } < or >');
  if (!/^(normal|bold|lighter|bolder|[1-9]00)( [1-9]00)?$/.test(text(form['weight']))) add('weight', 'normal, bold or 100–900');
  if (typeof source === 'string') add('customSource', source);
}

/** Checks a form as the webview sent it: its shape, then each value a render would refuse. */
export function checkForm(raw: unknown): CheckedForm {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return { problems: [{ field: 'source', message: 'no form' }] };
  const form = raw as Json;
  const problems: FieldProblem[] = [];
  const add = (field: FieldProblem['field'], message: string) => problems.push({ field, message });
  if (!oneOf(form['source'], ['url', 'html'] as const)) add('source', 'URL or HTML');
  if (!oneOf(form['endpoint'], ['screenshot', 'pdf'] as const)) add('endpoint', 'screenshot or pdf');
  if (!oneOf(form['style'], ['normal', 'italic'] as const)) add('style', 'normal or italic');
  if (!oneOf(form['fallback'], FALLBACKS)) add('fallback', FALLBACKS.join(', '));
  if (typeof form['scale'] !== 'number' || !(form['scale'] >= 0.1 && form['scale'] <= 10)) add('scale', 'a number from 0.1 to 10');
  const shapeOk = problems.length === 0;

  if (form['source'] === 'url') {
    const url = text(form['url']).trim();
    if (url === '') add('url', 'enter the URL of the page');
    else {
      const problem = webUrl(url, ['https:', 'http:']);
      if (problem) add('url', problem);
    }
  }
  if (form['source'] === 'html' && text(form['html']).trim() === '') add('html', 'enter some HTML');
  const width = viewportSide(form['width']);
  if (width) add('width', width);
  const height = viewportSide(form['height']);
  if (height) add('height', height);
  if (!width && !height && typeof form['scale'] === 'number') {
    const pixels = (form['width'] as number) * (form['height'] as number) * form['scale'] ** 2;
    if (pixels > MAX_BITMAP_PIXELS)
      add(
        'height',
        `${form['width']}×${form['height']} at ${form['scale']}× is ${Math.round(pixels / 1e6)} megapixels; a capture has at most ${MAX_BITMAP_PIXELS / 1e6}`,
      );
  }
  const source = customSource(form['customSource']);
  fontProblems(form, source, add);
  if (!shapeOk) return { problems };
  const htmlFile = form['source'] === 'html' && typeof form['htmlFile'] === 'string' && form['htmlFile'] !== '' ? form['htmlFile'] : undefined;
  return {
    form: {
      source: form['source'] as PreviewForm['source'],
      url: text(form['url']),
      html: text(form['html']),
      ...(htmlFile ? { htmlFile } : {}),
      endpoint: form['endpoint'] as PreviewForm['endpoint'],
      width: typeof form['width'] === 'number' ? form['width'] : NaN,
      height: typeof form['height'] === 'number' ? form['height'] : NaN,
      scale: form['scale'] as number,
      font: text(form['font']),
      customFamily: text(form['customFamily']),
      // A well-formed custom source is kept while another font is chosen.
      ...(typeof source === 'object' ? { customSource: source } : {}),
      weight: text(form['weight']) || 'normal',
      style: form['style'] as PreviewForm['style'],
      fallback: form['fallback'] as PreviewForm['fallback'],
    },
    problems,
  };
}

/** The problems in one line, for the status and the log. */
export function problemsText(problems: FieldProblem[]): string {
  return problems.map((p) => `${FIELD_NAMES[p.field]}: ${p.message}`).join('; ');
}

const FIELD_NAMES: Record<FieldProblem['field'], string> = {
  source: 'Page',
  url: 'URL',
  html: 'HTML',
  endpoint: 'Output',
  width: 'Width',
  height: 'Height',
  scale: 'Scale',
  font: 'Font',
  customFamily: 'Family',
  customSource: 'Font URL or file',
  weight: 'Weight',
  style: 'Style',
  fallback: 'Fallback',
};
