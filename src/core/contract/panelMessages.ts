/**
 * The messages of the inspector's and chaos's webview pages (the SQL results, the state timeline,
 * a chaos run's results), declared once for both sides as the render preview's are
 * (browserRendering/previewProtocol.ts).
 *
 * - **Page → extension**: a click on an element the page builder marked with a message
 *   (`vscode/inspector/webviewHtml.ts`, `commandAttributes`: `data-command`, `data-arg`) and a
 *   key the page binds (`keyBindings`) post that message; the page builders build them typed by
 *   the unions below, and the panel parses what arrives with the parser beside each (a page's
 *   message is untrusted: anything else is dropped).
 * - **Extension → page**: these panels post nothing; the extension draws each page whole from its
 *   view, and what a page keeps across a reload is its `setState` (editors.ts, with its parse).
 */
import { isPerturbation, type Perturbation } from './chaos';

/** What a page posts: a command, with its argument when it names something. */
export interface PanelCommand<C extends string = string> {
  readonly type: 'command';
  readonly command: C;
  readonly arg?: string;
}

/** The SQL results panel: each button runs the console's command of that name. */
export type ResultsMessage = PanelCommand<'run' | 'history' | 'exportCsv' | 'exportJson'>;

/** The state timeline: step, choose a step by its index, open the state before or after it. */
export type TimelineMessage = PanelCommand<'prev' | 'next' | 'openBefore' | 'openAfter'> | (PanelCommand<'select'> & { readonly arg: `${number}` });

/** A chaos run's results: choose a failure by its perturbation, step its timeline, replay it. */
export type ChaosMessage = PanelCommand<'prev' | 'next' | 'replay'> | (PanelCommand<'select'> & { readonly arg: Perturbation });

/** A check that a string is one of `values`. */
const oneOf =
  <T extends string>(values: readonly T[]) =>
  (value: string): value is T =>
    (values as readonly string[]).includes(value);
const isResultsCommand = oneOf<ResultsMessage['command']>(['run', 'history', 'exportCsv', 'exportJson']);
const isTimelineCommand = oneOf<Exclude<TimelineMessage['command'], 'select'>>(['prev', 'next', 'openBefore', 'openAfter']);
const isChaosCommand = oneOf<Exclude<ChaosMessage['command'], 'select'>>(['prev', 'next', 'replay']);

/** The command and argument of `message` when it is shaped as a page's command. */
function command(message: unknown): { command: string; arg: unknown } | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const { type, command, arg } = message as { type?: unknown; command?: unknown; arg?: unknown };
  return type === 'command' && typeof command === 'string' ? { command, arg } : undefined;
}

/** The results page's message in `message`, or undefined for anything else. */
export function parseResultsMessage(message: unknown): ResultsMessage | undefined {
  const found = command(message);
  return found && isResultsCommand(found.command) ? { type: 'command', command: found.command } : undefined;
}

const isIndex = (arg: unknown): arg is `${number}` => typeof arg === 'string' && /^\d+$/.test(arg);

/** The timeline page's message in `message`, or undefined for anything else. */
export function parseTimelineMessage(message: unknown): TimelineMessage | undefined {
  const found = command(message);
  if (!found) return undefined;
  if (found.command === 'select') return isIndex(found.arg) ? { type: 'command', command: 'select', arg: found.arg } : undefined;
  return isTimelineCommand(found.command) ? { type: 'command', command: found.command } : undefined;
}

/** The chaos page's message in `message`, or undefined for anything else. */
export function parseChaosMessage(message: unknown): ChaosMessage | undefined {
  const found = command(message);
  if (!found) return undefined;
  if (found.command === 'select')
    return typeof found.arg === 'string' && isPerturbation(found.arg) ? { type: 'command', command: 'select', arg: found.arg } : undefined;
  return isChaosCommand(found.command) ? { type: 'command', command: found.command } : undefined;
}
