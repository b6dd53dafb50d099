/**
 * The differential suite's one contract: an area is a fixture worker (its own folder under
 * test/differential/areas/<area>/ with a wrangler config and an entry) and a script of steps. The
 * runner sends the same steps to the real runtime (wrangler dev / Miniflare, the oracle) and to
 * `hookbench serve --worker`, and compares what each step declares it compares.
 */

/** What of an HTTP answer two runtimes must agree on. */
export interface Compare {
  /** The status code (default true). */
  readonly status?: boolean;
  /** The body: byte-equal text, parsed JSON deep-equal, or not compared (default 'text'). */
  readonly body?: 'text' | 'json' | 'ignore';
  /** Header names (lower case) whose values must be equal; absent on both counts as equal. */
  readonly headers?: readonly string[];
  /** Applied to both bodies before comparing (drop ids, timestamps): JSON when body is 'json'. */
  readonly normalize?: (body: unknown) => unknown;
}

/**
 * A step that differs because of a fix under way elsewhere: its difference is reported as awaited
 * (with this reason) and does not fail the run; once it agrees the runner says so, to drop the mark.
 */
export interface Awaiting {
  readonly awaits?: string;
}

/** One runtime's answer bodies so far, by step name (the last answer of a poll). */
export type Answers = ReadonlyMap<string, string>;

export interface HttpStep extends Awaiting {
  readonly kind?: 'http';
  readonly name: string;
  readonly method?: string;
  /**
   * Path and query on the worker's origin, e.g. `/agents/hook/one?x=1`; or made from this
   * runtime's own earlier answers (an id one runtime handed out that the next request names).
   */
  readonly path: string | ((earlier: Answers) => string);
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
  readonly compare?: Compare;
}

export interface WebSocketStep {
  readonly kind: 'ws';
  readonly name: string;
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Frames sent after the upgrade, in order. */
  readonly send?: readonly string[];
  /** After `send`, a text frame whose bytes are not UTF-8: a protocol error the server refuses. */
  readonly sendInvalidText?: boolean;
  /** How many text frames to collect before closing (each runtime must send at least these). */
  readonly frames: number;
  /** Applied to each received frame before comparing. */
  readonly normalize?: (frame: string) => unknown;
  /**
   * After the frames, the client closes with this code and reason and waits for the server's
   * close frame (whose code is compared); without it the client drops the connection (1006).
   */
  readonly close?: { readonly code: number; readonly reason: string };
  /** Also compare the upgrade answer's `sec-websocket-extensions` / `-protocol`. */
  readonly handshakeHeaders?: readonly string[];
}

/** Lets time pass in both runtimes (queues' batch timeout, alarms, workflow sleeps). */
export interface WaitStep {
  readonly kind: 'wait';
  readonly name: string;
  readonly ms: number;
}

/**
 * Polls an HTTP step until `until` says its body is ready (bounded by `timeoutMs`), then compares
 * the last answer: for what settles in the background (queue consumers, alarms, workflows).
 */
export interface PollStep {
  readonly kind: 'poll';
  readonly name: string;
  readonly step: HttpStep;
  readonly until: (status: number, body: string) => boolean;
  readonly timeoutMs: number;
  readonly intervalMs?: number;
}

/**
 * Several HTTP requests sent at once, as a provider's concurrent deliveries for one entity arrive
 * (docs/chaos.md, "concurrent"): every request is written before any answer is read. Each answer
 * is compared as its own step says, in the order the steps are given.
 */
export interface BurstStep {
  readonly kind: 'burst';
  readonly name: string;
  readonly steps: readonly HttpStep[];
}

/**
 * Waits until each runtime's output (its log: the worker's `console.log` lines among the rest) has
 * `count` matches of `pattern` (bounded by `timeoutMs`), then compares the matched texts in order:
 * for what a worker only logs, as a queue consumer or a scheduled handler does.
 */
export interface LogStep extends Awaiting {
  readonly kind: 'log';
  readonly name: string;
  readonly pattern: RegExp;
  readonly count: number;
  readonly timeoutMs: number;
  /** Applied to each matched text before comparing (drop ids, ports). */
  readonly normalize?: (match: string) => string;
}

export type Step = HttpStep | WebSocketStep | WaitStep | PollStep | BurstStep | LogStep;

/** One area: its folder (holding the wrangler config) and its script. */
export interface Area {
  readonly name: string;
  /** The folder with wrangler.jsonc and the entry, relative to test/differential/areas. */
  readonly folder: string;
  readonly steps: readonly Step[];
  /** Extra flags for both runtimes, e.g. `--test-scheduled`. */
  readonly flags?: readonly string[];
  /**
   * Flags for `hookbench serve` only, for its deliberate local differences (e.g. `--allow-origin
   * https://dashboard.example`: Hookbench refuses browsers from other origins unless told).
   */
  readonly hookbenchFlags?: readonly string[];
  /**
   * Fills the area's working copy instead of copying its folder: for a worker taken from an npm
   * package (a public template) or from elsewhere in the checkout (a fixture worker the unit tests
   * run too). `modules` is the node_modules the area's own package.json and lockfile installed into
   * the tools cache (linked into the copy for both runtimes), or the oracle's when the area has
   * none; `oracleModules` is the oracle's (wrangler, workerd, agents).
   */
  readonly prepare?: (work: string, tools: { readonly modules: string; readonly oracleModules: string }) => void;
}
