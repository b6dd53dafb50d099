/**
 * The request bodies of the Browser Rendering REST endpoints, validated and completed with
 * Cloudflare's defaults (docs/render.md, "Request fields, defaults and order"), so the emulator and the preview
 * work on one well-formed model. A bad field is a 400 naming the field.
 *
 * Policies where the docs are silent: `url` and `html` together are refused (which one would win
 * is undocumented); unknown fields are refused (a typo like `screenshotOption` would otherwise be
 * ignored silently, locally and on Cloudflare); the `goToOptions` spelling of the FAQ is accepted
 * as `gotoOptions`.
 */
import { RenderError } from './errors';

export const ENDPOINTS = ['screenshot', 'pdf', 'content', 'snapshot', 'scrape', 'links', 'markdown', 'json', 'accessibilityTree'] as const;
export type Endpoint = (typeof ENDPOINTS)[number];

export type WaitUntil = 'load' | 'domcontentloaded' | 'networkidle0' | 'networkidle2';

export const DEFAULT_USER_AGENT = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0.0.0 Safari/537.36';
export const MAX_WAIT_MS = 60_000;
export const MAX_ACTION_MS = 5 * 60_000;
/**
 * The most pixels one bitmap (the viewport, a clip, an element or a full page, in device pixels:
 * width × height × deviceScaleFactor²) may have. Chromium holds it raw at 4 bytes a pixel, then
 * encodes and base64-copies it over DevTools, so 100 megapixels is about 400 MB at its peak; past
 * that a request can take gigabytes from the developer's machine. A real capture stays below it:
 * Chromium draws at most 16384 px per side (its max texture), and a full HD page at scale 2 that
 * tall is 3840 × 16384 ≈ 63 megapixels.
 */
export const MAX_BITMAP_PIXELS = 100_000_000;

export interface RenderRequest {
  readonly endpoint: Endpoint;
  readonly url?: string;
  readonly html?: string;
  readonly gotoOptions: { timeout: number; waitUntil: WaitUntil[]; referer?: string };
  readonly waitForSelector?: { selector: string; timeout: number; visible: boolean; hidden: boolean };
  readonly waitForTimeout?: number;
  readonly actionTimeout?: number;
  readonly addStyleTag: ({ content: string } | { url: string })[];
  readonly addScriptTag: ({ content: string; type?: string; id?: string } | { url: string; type?: string; id?: string })[];
  readonly viewport: { width: number; height: number; deviceScaleFactor: number; isMobile: boolean; hasTouch: boolean; isLandscape: boolean };
  readonly userAgent: string;
  readonly setExtraHTTPHeaders: Record<string, string>;
  readonly cookies: Record<string, unknown>[];
  readonly authenticate?: { username: string; password: string };
  readonly rejectResourceTypes: string[];
  readonly allowResourceTypes: string[];
  readonly rejectRequestPattern: string[];
  readonly allowRequestPattern: string[];
  readonly emulateMediaType?: 'screen' | 'print';
  readonly bestAttempt: boolean;
  readonly setJavaScriptEnabled: boolean;
  /** Endpoint-specific options, checked per endpoint. */
  readonly screenshotOptions: Record<string, unknown>;
  readonly selector?: string;
  readonly scrollPage: boolean;
  readonly pdfOptions: Record<string, unknown>;
  readonly formats: string[];
  readonly elements: { selector: string }[];
  readonly visibleLinksOnly: boolean;
  readonly excludeExternalLinks: boolean;
  readonly interestingOnly: boolean;
  /** accessibilityTree: the CSS selector of the subtree's root. */
  readonly root?: string;
}

const RESOURCE_TYPES = new Set([
  'document',
  'stylesheet',
  'image',
  'media',
  'font',
  'script',
  'texttrack',
  'xhr',
  'fetch',
  'prefetch',
  'eventsource',
  'websocket',
  'manifest',
  'signedexchange',
  'ping',
  'cspviolationreport',
  'preflight',
  'other',
]);
const COMMON = new Set([
  'url',
  'html',
  'gotoOptions',
  'goToOptions',
  'waitForSelector',
  'waitForTimeout',
  'actionTimeout',
  'addStyleTag',
  'addScriptTag',
  'viewport',
  'userAgent',
  'setExtraHTTPHeaders',
  'cookies',
  'authenticate',
  'rejectResourceTypes',
  'allowResourceTypes',
  'rejectRequestPattern',
  'allowRequestPattern',
  'emulateMediaType',
  'bestAttempt',
  'setJavaScriptEnabled',
]);
const SPECIFIC: Record<Endpoint, string[]> = {
  screenshot: ['screenshotOptions', 'selector', 'scrollPage'],
  pdf: ['pdfOptions'],
  content: [],
  snapshot: ['formats', 'screenshotOptions'],
  scrape: ['elements'],
  links: ['visibleLinksOnly', 'excludeExternalLinks'],
  markdown: [],
  json: ['prompt', 'response_format', 'custom_ai'],
  accessibilityTree: ['interestingOnly', 'root'],
};
const SCREENSHOT_OPTIONS = new Set([
  'captureBeyondViewport',
  'clip',
  'encoding',
  'fromSurface',
  'fullPage',
  'omitBackground',
  'optimizeForSpeed',
  'quality',
  'type',
]);
const PDF_OPTIONS = new Set([
  'displayHeaderFooter',
  'footerTemplate',
  'headerTemplate',
  'format',
  'width',
  'height',
  'landscape',
  'margin',
  'omitBackground',
  'outline',
  'pageRanges',
  'preferCSSPageSize',
  'printBackground',
  'scale',
  'tagged',
  'timeout',
]);
const PDF_FORMATS = new Set(['letter', 'legal', 'tabloid', 'ledger', 'a0', 'a1', 'a2', 'a3', 'a4', 'a5', 'a6']);
const SNAPSHOT_FORMATS = new Set(['content', 'screenshot', 'markdown', 'accessibilityTree']);

/**
 * A reject/allow request pattern as a regular expression. The docs write patterns like
 * `"/^.*\\.(css)"`: a leading slash, with or without a closing one, is a delimiter, not part of it.
 */
export function requestPattern(text: string): RegExp {
  return new RegExp(text.replace(/^\/(.*)\/$/s, '$1').replace(/^\/(.*)$/s, '$1'));
}

const bad = (field: string, problem: string) => new RenderError(400, 400, `${field}: ${problem}`);

/**
 * Throws the 400 of an over-large bitmap: `width` × `height` CSS px drawn at `scale` device pixels
 * a CSS px. The render server calls it too, for what is known only after load (fullPage, selector).
 */
export function checkBitmapSize(field: string, width: number, height: number, scale: number): void {
  const pixels = width * height * scale * scale;
  if (pixels <= MAX_BITMAP_PIXELS) return;
  const megapixels = (n: number) => `${Math.round(n / 1e5) / 10} megapixels`;
  throw bad(
    field,
    `${Math.round(width)}×${Math.round(height)} px at scale ${scale} is ${megapixels(pixels)}; a bitmap is limited to ${megapixels(MAX_BITMAP_PIXELS)} (width × height × deviceScaleFactor²)`,
  );
}

type Json = Record<string, unknown>;

function object(value: unknown, field: string): Json {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw bad(field, 'must be an object');
  return value as Json;
}

/** `field` is read from `body`; errors name it as `${prefix}${field}`. */
function optional<T>(body: Json, field: string, check: (value: unknown, field: string) => T, prefix = ''): T | undefined {
  return body[field] === undefined || body[field] === null ? undefined : check(body[field], prefix + field);
}

const string = (value: unknown, field: string): string => {
  if (typeof value !== 'string') throw bad(field, 'must be a string');
  return value;
};
const boolean = (value: unknown, field: string): boolean => {
  if (typeof value !== 'boolean') throw bad(field, 'must be true or false');
  return value;
};
const number =
  (min: number, max: number) =>
  (value: unknown, field: string): number => {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) throw bad(field, `must be a number from ${min} to ${max}`);
    return value;
  };
const stringArray = (value: unknown, field: string): string[] => {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw bad(field, 'must be an array of strings');
  return value as string[];
};

function onlyKnown(body: Json, known: Set<string>, field: string): void {
  for (const key of Object.keys(body)) if (!known.has(key)) throw bad(field ? `${field}.${key}` : key, 'is not a field of this endpoint');
}

function navigationTarget(body: Json): { url?: string; html?: string } {
  const url = optional(body, 'url', string);
  const html = optional(body, 'html', string);
  if (url === undefined && html === undefined) throw bad('url', 'give url or html');
  if (url !== undefined && html !== undefined) throw bad('html', 'give url or html, not both');
  if (html !== undefined && html.length === 0) throw bad('html', 'must not be empty');
  if (url !== undefined) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw bad('url', `"${url}" is not a URL`);
    }
    // Only the web: file:// is Cloudflare's error 5010, and the emulator must not read local files.
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      throw new RenderError(400, 5010, `url: only http and https URLs can be rendered (got ${parsed.protocol})`);
  }
  return { url, html };
}

function tags<T>(value: unknown, field: string, extra: (item: Json, at: string) => Omit<T, 'content' | 'url'>): T[] {
  if (!Array.isArray(value)) throw bad(field, 'must be an array');
  return value.map((raw, i) => {
    const at = `${field}[${i}]`;
    const item = object(raw, at);
    const content = optional(item, 'content', string);
    const url = optional(item, 'url', string);
    // Puppeteer: "Exactly one of `url`, `path`, or `content` must be specified."
    if ((content === undefined) === (url === undefined)) throw bad(at, 'give exactly one of content or url');
    return { ...(content !== undefined ? { content } : { url: url! }), ...extra(item, at) } as T;
  });
}

const SOURCE_SCHEMES = new Set(['Unset', 'NonSecure', 'Secure']);

/**
 * The cookie fields Chromium's `Network.setCookies` refuses as a whole ("Invalid cookie fields"),
 * checked here so the answer is a 400 naming the field: a Secure cookie (`secure: true`, or an
 * https `url` when `secure` is not given) cannot come from a `NonSecure` scheme, and `sourcePort`
 * is -1 (unspecified) or 1–65535 (DevTools protocol, Network.CookieParam).
 */
function cookieList(value: unknown, field: string, requestUrl: string | undefined): Json[] {
  if (!Array.isArray(value) || !value.every((c) => typeof (c as Json)?.['name'] === 'string' && typeof (c as Json)?.['value'] === 'string'))
    throw bad(field, 'must be an array of {name, value, …}');
  (value as Json[]).forEach((cookie, i) => checkCookie(cookie, `${field}[${i}]`, requestUrl));
  return value as Json[];
}

function checkCookie(cookie: Json, at: string, requestUrl: string | undefined): void {
  const scheme = cookie['sourceScheme'];
  if (scheme !== undefined && !SOURCE_SCHEMES.has(scheme as string)) throw bad(`${at}.sourceScheme`, 'is Unset, NonSecure or Secure');
  const port = cookie['sourcePort'];
  if (port !== undefined && (typeof port !== 'number' || !Number.isInteger(port) || port === 0 || port < -1 || port > 65535))
    throw bad(`${at}.sourcePort`, 'is -1 (unspecified) or a port from 1 to 65535');
  const url = typeof cookie['url'] === 'string' ? cookie['url'] : cookie['domain'] === undefined ? requestUrl : undefined;
  const secure = cookie['secure'] === undefined ? url?.startsWith('https:') === true : cookie['secure'] === true;
  if (scheme === 'NonSecure' && secure) {
    const why = cookie['secure'] === true ? 'secure: true' : `its https url ${url}`;
    throw bad(`${at}.sourceScheme`, `"NonSecure" contradicts ${why}: a Secure cookie comes from a secure scheme; use "Secure" or leave sourceScheme out`);
  }
}

export function validateRenderRequest(endpoint: string, raw: unknown): RenderRequest {
  if (!(ENDPOINTS as readonly string[]).includes(endpoint)) throw new RenderError(404, 404, `no endpoint "${endpoint}"`);
  const ep = endpoint as Endpoint;
  const body = { ...object(raw, 'body') };
  if (body['goToOptions'] !== undefined && body['gotoOptions'] === undefined) body['gotoOptions'] = body['goToOptions'];
  delete body['goToOptions'];
  onlyKnown(body, new Set([...COMMON, ...SPECIFIC[ep]]), '');
  const target = navigationTarget(body);

  const goto = optional(body, 'gotoOptions', object) ?? {};
  onlyKnown(goto, new Set(['timeout', 'waitUntil', 'referer', 'referrerPolicy']), 'gotoOptions');
  const waitUntilRaw = goto['waitUntil'] ?? 'domcontentloaded';
  const waitUntil = (Array.isArray(waitUntilRaw) ? waitUntilRaw : [waitUntilRaw]) as unknown[];
  for (const w of waitUntil)
    if (!['load', 'domcontentloaded', 'networkidle0', 'networkidle2'].includes(w as string))
      throw bad('gotoOptions.waitUntil', 'is load, domcontentloaded, networkidle0 or networkidle2');

  const wfs = optional(body, 'waitForSelector', object);
  if (wfs) onlyKnown(wfs, new Set(['selector', 'timeout', 'visible', 'hidden']), 'waitForSelector');

  const viewport = optional(body, 'viewport', object) ?? {};
  onlyKnown(viewport, new Set(['width', 'height', 'deviceScaleFactor', 'hasTouch', 'isLandscape', 'isMobile']), 'viewport');

  const headers = optional(body, 'setExtraHTTPHeaders', object) ?? {};
  for (const [name, value] of Object.entries(headers)) if (typeof value !== 'string') throw bad(`setExtraHTTPHeaders.${name}`, 'must be a string');

  const resourceTypes = (field: string) => {
    const list = optional(body, field, stringArray) ?? [];
    for (const t of list) if (!RESOURCE_TYPES.has(t)) throw bad(field, `"${t}" is not a resource type`);
    return list;
  };
  const patterns = (field: string) => {
    const list = optional(body, field, stringArray) ?? [];
    for (const p of list) {
      try {
        requestPattern(p);
      } catch {
        throw bad(field, `"${p}" is not a regular expression`);
      }
    }
    return list;
  };

  const view = {
    width: optional(viewport, 'width', number(1, 16_384), 'viewport.') ?? 1920,
    height: optional(viewport, 'height', number(1, 16_384), 'viewport.') ?? 1080,
    deviceScaleFactor: optional(viewport, 'deviceScaleFactor', number(0.1, 10), 'viewport.') ?? 1,
    isMobile: optional(viewport, 'isMobile', boolean, 'viewport.') ?? false,
    hasTouch: optional(viewport, 'hasTouch', boolean, 'viewport.') ?? false,
    isLandscape: optional(viewport, 'isLandscape', boolean, 'viewport.') ?? false,
  };
  checkBitmapSize('viewport', view.width, view.height, view.deviceScaleFactor);

  const auth = optional(body, 'authenticate', object);
  const screenshotOptions = optional(body, 'screenshotOptions', object) ?? {};
  onlyKnown(screenshotOptions, SCREENSHOT_OPTIONS, 'screenshotOptions');
  const type = screenshotOptions['type'] ?? 'png';
  if (!['png', 'jpeg', 'webp'].includes(type as string)) throw bad('screenshotOptions.type', 'is png, jpeg or webp');
  if (screenshotOptions['quality'] !== undefined) {
    if (type === 'png') throw bad('screenshotOptions.quality', 'is not compatible with the png type');
    number(0, 100)(screenshotOptions['quality'], 'screenshotOptions.quality');
  }
  const clip = optional(screenshotOptions, 'clip', object, 'screenshotOptions.');
  if (clip) {
    // Chromium draws a clip at its own scale times the device scale factor.
    const size = (key: string): number => {
      const value = clip[key];
      if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw bad(`screenshotOptions.clip.${key}`, 'must be a number above 0');
      return value;
    };
    const clipScale = clip['scale'] === undefined ? 1 : size('scale');
    checkBitmapSize('screenshotOptions.clip', size('width'), size('height'), clipScale * view.deviceScaleFactor);
  }
  const pdfOptions = optional(body, 'pdfOptions', object) ?? {};
  onlyKnown(pdfOptions, PDF_OPTIONS, 'pdfOptions');
  if (pdfOptions['format'] !== undefined && !PDF_FORMATS.has(String(pdfOptions['format']).toLowerCase()))
    throw bad('pdfOptions.format', 'is letter, legal, tabloid, ledger or a0–a6');
  if (pdfOptions['scale'] !== undefined) number(0.1, 2)(pdfOptions['scale'], 'pdfOptions.scale');
  if (pdfOptions['timeout'] !== undefined) number(0, MAX_ACTION_MS)(pdfOptions['timeout'], 'pdfOptions.timeout');

  const formats = ep === 'snapshot' ? (optional(body, 'formats', stringArray) ?? ['content', 'screenshot']) : [];
  for (const f of formats) if (!SNAPSHOT_FORMATS.has(f)) throw bad('formats', `"${f}" is content, screenshot, markdown or accessibilityTree`);
  if (ep === 'snapshot' && formats.length < 2) throw bad('formats', 'request at least two formats');
  const elements = ep === 'scrape' ? (body['elements'] as unknown) : [];
  if (ep === 'scrape' && (!Array.isArray(elements) || elements.length === 0 || !elements.every((e) => typeof (e as Json)?.['selector'] === 'string')))
    throw bad('elements', 'must be a non-empty array of {selector}');

  return {
    endpoint: ep,
    ...target,
    gotoOptions: {
      timeout: optional(goto, 'timeout', number(0, MAX_WAIT_MS), 'gotoOptions.') ?? 30_000,
      waitUntil: waitUntil as WaitUntil[],
      ...(goto['referer'] !== undefined ? { referer: string(goto['referer'], 'gotoOptions.referer') } : {}),
    },
    ...(wfs
      ? {
          waitForSelector: {
            selector: string(wfs['selector'], 'waitForSelector.selector'),
            timeout: optional(wfs, 'timeout', number(0, MAX_WAIT_MS), 'waitForSelector.') ?? 30_000,
            visible: wfs['visible'] === true,
            hidden: wfs['hidden'] === true,
          },
        }
      : {}),
    ...(body['waitForTimeout'] !== undefined ? { waitForTimeout: number(0, MAX_WAIT_MS)(body['waitForTimeout'], 'waitForTimeout') } : {}),
    ...(body['actionTimeout'] !== undefined ? { actionTimeout: number(0, MAX_ACTION_MS)(body['actionTimeout'], 'actionTimeout') } : {}),
    addStyleTag: body['addStyleTag'] === undefined ? [] : tags(body['addStyleTag'], 'addStyleTag', () => ({})),
    addScriptTag:
      body['addScriptTag'] === undefined
        ? []
        : tags(body['addScriptTag'], 'addScriptTag', (item, at) => ({
            ...(item['type'] !== undefined ? { type: string(item['type'], `${at}.type`) } : {}),
            ...(item['id'] !== undefined ? { id: string(item['id'], `${at}.id`) } : {}),
          })),
    viewport: view,
    userAgent: optional(body, 'userAgent', string) ?? DEFAULT_USER_AGENT,
    setExtraHTTPHeaders: headers as Record<string, string>,
    cookies: optional(body, 'cookies', (v, f) => cookieList(v, f, target.url)) ?? [],
    ...(auth
      ? { authenticate: { username: string(auth['username'], 'authenticate.username'), password: string(auth['password'], 'authenticate.password') } }
      : {}),
    rejectResourceTypes: resourceTypes('rejectResourceTypes'),
    allowResourceTypes: resourceTypes('allowResourceTypes'),
    rejectRequestPattern: patterns('rejectRequestPattern'),
    allowRequestPattern: patterns('allowRequestPattern'),
    ...(body['emulateMediaType'] !== undefined
      ? {
          emulateMediaType: ((v) => {
            if (v !== 'screen' && v !== 'print') throw bad('emulateMediaType', 'is screen or print');
            return v;
          })(body['emulateMediaType']),
        }
      : {}),
    bestAttempt: optional(body, 'bestAttempt', boolean) ?? false,
    setJavaScriptEnabled: optional(body, 'setJavaScriptEnabled', boolean) ?? true,
    screenshotOptions: { ...screenshotOptions, type },
    ...(body['selector'] !== undefined ? { selector: string(body['selector'], 'selector') } : {}),
    scrollPage: optional(body, 'scrollPage', boolean) ?? false,
    pdfOptions,
    formats,
    elements: (elements as { selector: string }[]) ?? [],
    visibleLinksOnly: optional(body, 'visibleLinksOnly', boolean) ?? false,
    excludeExternalLinks: optional(body, 'excludeExternalLinks', boolean) ?? false,
    interestingOnly: optional(body, 'interestingOnly', boolean) ?? true,
    ...(body['root'] !== undefined ? { root: string(body['root'], 'root') } : {}),
  };
}
