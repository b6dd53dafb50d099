/**
 * Workers Static Assets (`"assets"` in the wrangler config), served from the directory on disk as
 * the platform's asset worker and router serve them (workers-sdk `workers-shared/asset-worker`,
 * `router-worker`, as bundled in Miniflare 4.20260426.0): html_handling `auto-trailing-slash` and
 * `none`, not_found_handling `404-page` and `single-page-application`, `run_worker_first` as a
 * boolean or route patterns, `env.<binding>.fetch` (following the asset worker's redirects
 * unless the request says `redirect: "manual"`, as a workerd Fetcher does), strong ETags with
 * 304s. Files are read on each request, so an edited file is served at once (no reload step).
 * ETag values are wrangler dev's: Miniflare names a file's content in dev by the first 16 bytes of
 * SHA-256 over its absolute path and its modification time (`hash(filePath + mtimeMs)`, in hex),
 * so that an edit changes it without reading every file (deployed assets carry a blake3 hash
 * of the content instead).
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AssetsConfig } from '../../core/workerConfig/wranglerConfig';

/** What a path resolves to: an asset to serve (with its status), a redirect, or nothing. */
type Intent = { readonly file: string; readonly eTag: string; readonly status: 200 | 404 } | { readonly redirect: string } | null;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

const CACHE_CONTROL = 'public, max-age=0, must-revalidate';

/** The platform's content types (the `mime` package's), text ones with `; charset=utf-8`. */
const TYPES: Readonly<Record<string, string>> = {
  html: 'text/html',
  htm: 'text/html',
  css: 'text/css',
  js: 'text/javascript',
  mjs: 'text/javascript',
  txt: 'text/plain',
  md: 'text/markdown',
  csv: 'text/csv',
  xml: 'text/xml',
  json: 'application/json',
  map: 'application/json',
  webmanifest: 'application/manifest+json',
  wasm: 'application/wasm',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  ico: 'image/vnd.microsoft.icon',
  woff: 'font/woff',
  woff2: 'font/woff2',
  ttf: 'font/ttf',
  otf: 'font/otf',
  pdf: 'application/pdf',
  zip: 'application/zip',
  mp4: 'video/mp4',
  mp3: 'audio/mpeg',
};

export function contentTypeOf(file: string): string | undefined {
  const type = TYPES[path.extname(file).slice(1).toLowerCase()];
  return type?.startsWith('text/') ? `${type}; charset=utf-8` : type;
}

/** Decoded path segments, repeated slashes folded (the asset worker's `decodePath`). */
function decodePath(pathname: string): string {
  return pathname
    .split('/')
    .map((part) => {
      try {
        return decodeURIComponent(part);
      } catch {
        return part;
      }
    })
    .join('/')
    .replace(/\/+/g, '/');
}

function encodePath(pathname: string): string {
  return pathname
    .split('/')
    .map((part) => encodeURIComponent(part))
    .join('/');
}

/** `/api/*` → a RegExp over the whole pathname. */
function routePattern(rule: string): RegExp {
  return new RegExp(
    `^${rule
      .split('*')
      .map((part) => part.replace(/[-/\\^$+?.()|[\]{}]/g, '\\$&'))
      .join('.*')}$`,
  );
}

export class AssetServer {
  private readonly workerRules: readonly RegExp[];
  private readonly assetRules: readonly RegExp[];

  constructor(readonly config: AssetsConfig) {
    const rules = Array.isArray(config.runWorkerFirst) ? config.runWorkerFirst : [];
    this.workerRules = rules.filter((rule) => rule.startsWith('/')).map(routePattern);
    this.assetRules = rules.filter((rule) => rule.startsWith('!/')).map((rule) => routePattern(rule.slice(1)));
  }

  /** The ETag of the file at `pathname` (decoded), or null when there is none (directories and paths outside included). */
  exists(pathname: string): { file: string; eTag: string } | null {
    const root = path.resolve(this.config.directory);
    const file = path.resolve(root, `.${pathname}`);
    if (file !== root && !file.startsWith(root + path.sep)) return null;
    let stat: fs.Stats;
    try {
      stat = fs.statSync(file);
    } catch {
      return null;
    }
    if (!stat.isFile()) return null;
    return {
      file,
      eTag: createHash('sha256')
        .update(file + stat.mtimeMs.toString())
        .digest('hex')
        .slice(0, 32),
    };
  }

  private asset(pathname: string, status: 200 | 404 = 200): Intent {
    const found = this.exists(pathname);
    return found ? { ...found, status } : null;
  }

  /** A redirect to `destination` when it serves the same file as `file` (the asset worker's `safeRedirect`). */
  private safeRedirect(file: string, destination: string, skip: boolean, notFound: AssetsConfig['notFoundHandling']): Intent {
    if (skip || this.exists(destination)) return null;
    const target = this.intent(destination, true, notFound);
    const same = this.exists(file);
    return target && 'eTag' in target && same && target.eTag === same.eTag ? { redirect: destination } : null;
  }

  private intent(pathname: string, skip = false, notFound = this.config.notFoundHandling): Intent {
    if (this.config.htmlHandling === 'none') return this.asset(pathname) ?? this.notFound(pathname, notFound);
    const exact = this.asset(pathname);
    if (pathname.endsWith('/index')) {
      if (exact) return exact;
      return (
        this.safeRedirect(`${pathname}.html`, pathname.slice(0, -5), skip, notFound) ??
        this.safeRedirect(`${pathname.slice(0, -6)}.html`, pathname.slice(0, -6), skip, notFound) ??
        this.fallback(pathname, exact, skip, notFound)
      );
    }
    if (pathname.endsWith('/index.html')) {
      const redirect =
        this.safeRedirect(pathname, pathname.slice(0, -10), skip, notFound) ??
        this.safeRedirect(`${pathname.slice(0, -11)}.html`, pathname.slice(0, -11), skip, notFound);
      return redirect ?? this.fallback(pathname, exact, skip, notFound);
    }
    if (pathname.endsWith('/')) {
      const index = this.asset(`${pathname}index.html`);
      if (index) return index;
      return this.safeRedirect(`${pathname.slice(0, -1)}.html`, pathname.slice(0, -1), skip, notFound) ?? this.fallback(pathname, exact, skip, notFound);
    }
    if (pathname.endsWith('.html')) {
      const redirect =
        this.safeRedirect(pathname, pathname.slice(0, -5), skip, notFound) ??
        this.safeRedirect(`${pathname.slice(0, -5)}/index.html`, `${pathname.slice(0, -5)}/`, skip, notFound);
      if (redirect) return redirect;
    }
    return this.fallback(pathname, exact, skip, notFound);
  }

  /** auto-trailing-slash's last steps: the file itself, `<path>.html`, a redirect to `<path>/`, then not-found handling. */
  private fallback(pathname: string, exact: Intent, skip: boolean, notFound: AssetsConfig['notFoundHandling']): Intent {
    return (
      exact ??
      this.asset(`${pathname}.html`) ??
      this.safeRedirect(`${pathname}/index.html`, `${pathname}/`, skip, notFound) ??
      this.notFound(pathname, notFound)
    );
  }

  private notFound(pathname: string, handling: AssetsConfig['notFoundHandling']): Intent {
    if (handling === 'single-page-application') return this.asset('/index.html');
    if (handling === '404-page') {
      for (let dir = pathname; dir;) {
        dir = dir.slice(0, dir.lastIndexOf('/'));
        const page = this.asset(`${dir}/404.html`, 404);
        if (page) return page;
      }
    }
    return null;
  }

  /** What the asset worker answers (`env.ASSETS.fetch`, and requests routed to assets). */
  fetch(request: Request, notFound = this.config.notFoundHandling): Response {
    const url = new URL(request.url);
    const decoded = decodePath(url.pathname);
    const intent = this.intent(decoded, false, notFound);
    if (!intent) return new Response(null, { status: 404, statusText: 'Not Found' });
    const method = request.method.toUpperCase();
    if (method !== 'GET' && method !== 'HEAD') return new Response(null, { status: 405, statusText: 'Method Not Allowed' });
    const destination = 'redirect' in intent ? intent.redirect : decoded;
    const encoded = encodePath(destination);
    if ('redirect' in intent || encoded !== url.pathname) {
      return new Response(null, { status: 307, statusText: 'Temporary Redirect', headers: { Location: encoded + url.search } });
    }
    const headers = new Headers({ ETag: `"${intent.eTag}"` });
    const type = contentTypeOf(intent.file);
    if (type) headers.set('Content-Type', type);
    if (!request.headers.has('Authorization') && !request.headers.has('Range')) headers.set('Cache-Control', CACHE_CONTROL);
    const ifNoneMatch = request.headers.get('If-None-Match') ?? '';
    if (ifNoneMatch === `"${intent.eTag}"` || ifNoneMatch === `W/"${intent.eTag}"`)
      return new Response(null, { status: 304, statusText: 'Not Modified', headers });
    const body = method === 'HEAD' ? null : fs.readFileSync(intent.file);
    return new Response(body, { status: intent.status, ...(intent.status === 404 ? { statusText: 'Not Found' } : {}), headers });
  }

  /**
   * `env.<binding>.fetch(input, init)`: the asset worker's answer, its redirects followed (up to
   * 20, as fetch does) unless the request's `redirect` is `manual`, as for an incoming request
   * passed on whole (`new Request(url, request)`). The answer's `url` is the last URL asked for,
   * `redirected` whether a redirect was followed. A relative URL is refused with workerd's TypeError.
   */
  bindingFetch(input: Request | string | URL, init?: RequestInit): Response {
    if (typeof input === 'string' && !URL.canParse(input)) throw new TypeError(`Invalid URL: ${input}`);
    let request = new Request(input, init);
    let response = this.fetch(request);
    let hops = 0;
    for (; request.redirect === 'follow' && REDIRECTS.has(response.status) && hops < 20; hops++) {
      request = new Request(new URL(response.headers.get('Location') ?? '', request.url), request);
      response = this.fetch(request);
    }
    return Object.defineProperties(response, { url: { value: request.url }, redirected: { value: hops > 0 } });
  }

  /**
   * The router: patterns of `run_worker_first` first (`!/…` to assets, `/…` to the worker), then
   * `run_worker_first: true` to the worker, else assets when a path resolves to one (not-found
   * handling only for navigations or with patterns), else the worker.
   */
  async route(request: Request, worker: (request: Request) => Promise<Response>): Promise<Response> {
    const { pathname } = new URL(request.url);
    const patterns = Array.isArray(this.config.runWorkerFirst);
    if (patterns) {
      if (this.assetRules.some((rule) => rule.test(pathname))) return this.fetch(request);
      if (this.workerRules.some((rule) => rule.test(pathname))) return worker(request);
    }
    if (this.config.runWorkerFirst === true) return worker(request);
    const navigate = request.headers.get('Sec-Fetch-Mode') === 'navigate';
    const notFound = patterns || navigate ? this.config.notFoundHandling : 'none';
    if (this.intent(decodePath(pathname), false, notFound) === null) return worker(request);
    return this.fetch(request, notFound);
  }
}
