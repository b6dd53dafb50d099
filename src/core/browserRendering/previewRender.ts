/**
 * One render of the preview form: the capture, and from the local emulator the font report
 * (each font once) with warnings for the fonts that did not draw the page. A custom font file
 * that is not a font is refused before anything is sent.
 */
import { RenderClientError, type RenderClient } from './client';
import { FontFaceError, sniffFontFormat } from './fontFace';
import { fontUsage } from './fontUsage';
import { explainFontFailure, fontFailures, fontFailureText, type ReportedFonts } from './fontWarnings';
import { formSpec, previewBody, type PreviewSpec } from './previewBody';
import type { PreviewForm, RenderedElement, ToWebview } from './previewProtocol';

export interface PreviewRenderOptions {
  /** Ask for the font report too (the local emulator has one, Cloudflare does not). */
  readonly fontReport: boolean;
  /** The bytes of the custom font file, read by the caller (the webview never has them). */
  readonly fontBytes?: Uint8Array;
  /** How the URL of a custom font that failed is looked at, to say why. */
  readonly fetch: typeof fetch;
}

export interface PreviewCapture {
  readonly bytes: Buffer;
  readonly contentType: string;
  readonly message: Extract<ToWebview, { type: 'rendered' }>;
}

type EmulatorReport = ReportedFonts & { elements: RenderedElement[]; fontsReady: string };

/** The form's request body; a font file whose bytes are no font is an error here, not a fallback later. */
export function previewRequest(form: PreviewForm, fontBytes?: Uint8Array): { spec: PreviewSpec; body: Record<string, unknown> } {
  const spec = formSpec(form, fontBytes);
  const source = spec.font?.kind === 'custom' ? spec.font.source : undefined;
  if (source && 'bytes' in source && !sniffFontFormat(source.bytes)) {
    const start = Array.from(source.bytes.subarray(0, 8), (b) => b.toString(16).padStart(2, '0')).join(' ');
    throw new FontFaceError(
      `${source.fileName ?? 'the font file'} is not a font: it does not start like a WOFF2, WOFF, TrueType or OpenType file (its first bytes are ${start || 'none'})`,
    );
  }
  return { spec, body: previewBody(spec) };
}

type Captured = { contentType: string; bytes: Buffer; browserMsUsed?: number };

/** The capture alone, from its endpoint. */
async function captureOnly(client: RenderClient, form: PreviewForm, body: Record<string, unknown>): Promise<Captured> {
  const answer = await client.render(form.endpoint, body);
  if (answer.kind !== 'binary') throw new RenderClientError(500, [], `${form.endpoint} answered JSON, not an image or PDF`);
  return answer;
}

/**
 * The capture and the font report from one page: one request, one context. If that fails, the
 * capture alone is asked for, so a failed report never costs the image, and a failed render says
 * what its endpoint says.
 */
async function captureWithReport(
  client: RenderClient,
  form: PreviewForm,
  body: Record<string, unknown>,
): Promise<{ answer: Captured; report: EmulatorReport | Error }> {
  try {
    const { report, ...answer } = await client.fontReportWithCapture<EmulatorReport>(body, form.endpoint);
    return { answer, report };
  } catch (error) {
    return { answer: await captureOnly(client, form, body), report: error as Error };
  }
}

export async function renderPreview(client: RenderClient, form: PreviewForm, options: PreviewRenderOptions): Promise<PreviewCapture> {
  const { spec, body } = previewRequest(form, options.fontBytes);
  const { answer, report } = options.fontReport
    ? await captureWithReport(client, form, body)
    : { answer: await captureOnly(client, form, body), report: undefined };
  const warnings = report && !(report instanceof Error) ? await warningsFor(report, spec, options.fetch) : [];
  return {
    bytes: answer.bytes,
    contentType: answer.contentType,
    message: {
      type: 'rendered',
      contentType: answer.contentType,
      data: answer.bytes.toString('base64'),
      ...(answer.browserMsUsed !== undefined ? { browserMsUsed: answer.browserMsUsed } : {}),
      ...(report instanceof Error
        ? { reportError: report.message }
        : report
          ? { report: { elements: report.elements, fonts: fontUsage(report.elements), fontsReady: report.fontsReady } }
          : {}),
      warnings,
    },
  };
}

async function warningsFor(report: EmulatorReport, spec: PreviewSpec, fetchFont: typeof fetch): Promise<string[]> {
  const font = spec.font;
  return Promise.all(
    fontFailures(report, font?.family).map(async (failure) => {
      const ours = font?.kind === 'custom' && failure.kind === 'failed' && failure.family.toLowerCase() === font.family.toLowerCase();
      return fontFailureText(failure, ours ? await explainFontFailure(font.source, fetchFont) : undefined);
    }),
  );
}
