/**
 * Stack traces in the user's own files: every frame in a worker bundle is mapped through the
 * bundle's source map to the TypeScript file, line and column it came from, and named relative to
 * the project (docs/runtime.md, "Errors and stack traces"). Node 20 maps modules it loads itself,
 * never a bundle run with `vm`, so the host maps its own frames while it runs the worker.
 */
import { SourceMap, type SourceMapPayload } from 'node:module';
import * as path from 'node:path';
import type { SourceLocation } from '../../core/contract/workerProblems';

/** A bundle's positions → the user's sources (absolute paths; 1-based lines and columns). */
export class BundleMap {
  private readonly map: SourceMap;

  /** `lineOffset`: lines the evaluator put before the bundle's first line. */
  constructor(
    payload: SourceMapPayload,
    private readonly lineOffset: number,
  ) {
    this.map = new SourceMap(payload);
  }

  /** Where the bundle's `line`:`column` (1-based, as a stack prints them) came from. */
  locate(line: number, column: number): SourceLocation | undefined {
    const entry = this.map.findEntry(line - 1 - this.lineOffset, column - 1) as Partial<{
      originalSource: string;
      originalLine: number;
      originalColumn: number;
    }>;
    if (entry.originalSource === undefined || entry.originalLine === undefined || entry.originalColumn === undefined) return undefined;
    return { file: entry.originalSource, line: entry.originalLine + 1, column: entry.originalColumn + 1 };
  }
}

/** The inline source map esbuild appends to a bundle, its sources made absolute against `base`. */
export function inlineSourceMap(code: string, base: string): SourceMapPayload | undefined {
  const match = /\n\/\/# sourceMappingURL=data:application\/json;base64,([A-Za-z0-9+/=]+)\s*$/.exec(code);
  if (!match) return undefined;
  const payload = JSON.parse(Buffer.from(match[1]!, 'base64').toString('utf8')) as SourceMapPayload;
  return { ...payload, sources: payload.sources.map((source) => path.resolve(base, source)) };
}

type Prepare = (error: Error, sites: NodeJS.CallSite[]) => unknown;

/**
 * Maps the frames of the bundles it knows while installed (`Error.prepareStackTrace`, chained
 * with whatever was there before). Paths under `root` are printed relative to it.
 */
export class SourceStacks {
  private readonly bundles = new Map<string, BundleMap>();

  constructor(private readonly root: string) {}

  /** Maps the frames of the script named `fileName` with `map` (a reload replaces it). */
  register(fileName: string, map: BundleMap): void {
    this.bundles.set(fileName, map);
  }

  unregister(fileName: string): void {
    this.bundles.delete(fileName);
  }

  /** Starts mapping every stack the process formats; dispose to stop. */
  install(): { dispose(): void } {
    const previous = Error.prepareStackTrace as Prepare | undefined;
    let active = true;
    const prepare: Prepare = (error, sites) => {
      const mapped = active ? sites.map((site) => this.site(site)) : sites;
      return previous ? previous(error, mapped) : formatStack(error, mapped);
    };
    Error.prepareStackTrace = prepare;
    return {
      dispose: () => {
        active = false;
        this.bundles.clear();
        if (Error.prepareStackTrace !== prepare) return;
        if (previous) Error.prepareStackTrace = previous;
        else delete (Error as { prepareStackTrace?: unknown }).prepareStackTrace;
      },
    };
  }

  /** How a source file is named in a stack: relative to the project when inside it. */
  display(file: string): string {
    const relative = path.relative(this.root, file);
    return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
  }

  /** A source file as the stack named it, made absolute again. */
  resolve(shown: string): string {
    return path.resolve(this.root, shown);
  }

  private site(site: NodeJS.CallSite): NodeJS.CallSite {
    const fileName = site.getFileName();
    const map = fileName === undefined || fileName === null ? undefined : this.bundles.get(fileName);
    const line = site.getLineNumber();
    const column = site.getColumnNumber();
    const found = map && line !== null && column !== null ? map.locate(line, column) : undefined;
    if (!found) return site;
    const shown = this.display(found.file);
    const text = site.toString().replace(`${fileName}:${line}:${column}`, `${shown}:${found.line}:${found.column}`);
    return new Proxy(site, {
      get(target, property) {
        if (property === 'getFileName' || property === 'getScriptNameOrSourceURL') return () => shown;
        if (property === 'getLineNumber') return () => found.line;
        if (property === 'getColumnNumber') return () => found.column;
        if (property === 'toString') return () => text;
        const value = Reflect.get(target, property) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
  }
}

/** V8's own format: the error's first line, then one `    at …` line per frame. */
function formatStack(error: Error, sites: readonly NodeJS.CallSite[]): string {
  let head: string;
  try {
    head = Error.prototype.toString.call(error);
  } catch {
    head = '<error>';
  }
  return head + sites.map((site) => `\n    at ${String(site)}`).join('');
}

const FRAME = /^\s+at (?:.*? \()?(.+?):(\d+):(\d+)\)?$/;

/**
 * The first frame of a mapped `stack` in one of `sources` (absolute paths) that is not a
 * dependency's: where the user's own code threw.
 */
export function firstSourceFrame(stack: string, stacks: SourceStacks, sources: ReadonlySet<string>): SourceLocation | undefined {
  for (const line of stack.split('\n')) {
    const match = FRAME.exec(line);
    if (!match) continue;
    const file = stacks.resolve(match[1]!);
    if (sources.has(file) && !file.split(path.sep).includes('node_modules')) return { file, line: Number(match[2]), column: Number(match[3]) };
  }
  return undefined;
}
