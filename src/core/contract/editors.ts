/**
 * What VS Code keeps of Hookbench's editors across a window reload and a restart
 * (docs/inspector.md, "After a reload"): a payload draft's record, stored beside its text in the
 * workspace's private storage, and the state of the results and timeline webviews, which VS Code
 * stores for the panel and hands back to the panel's serializer. Each is written and read here.
 */

import type { QueryValue } from './admin';
import { PROVIDERS, type ProviderName } from './providers';

/** What a payload draft is for: the send reads it, the CodeLens shows it. */
export interface DraftMeta {
  readonly provider: ProviderName;
  readonly event: string;
  /** Empty: the receiver takes the entity from the payload. */
  readonly entity: string;
  /** The template's own headers (event type, content type, delivery id); never a signature. */
  readonly headers: Record<string, string>;
  /** Where to send; undefined means the local receiver. */
  url?: string;
}

/** A stored draft: the path of its URI (which titles its tab) and what it is for. */
export interface DraftRecord {
  readonly path: string;
  readonly meta: DraftMeta;
}

const isText = (value: unknown): value is string => typeof value === 'string';
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export function formatDraftRecord(record: DraftRecord): string {
  return `${JSON.stringify(record, null, 2)}\n`;
}

/** The record in `text`, or undefined when it is not one (a file damaged or from elsewhere). */
export function parseDraftRecord(text: string): DraftRecord | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(raw) || !isText(raw['path']) || !isRecord(raw['meta'])) return undefined;
  const { provider, event, entity, headers, url } = raw['meta'];
  if (!PROVIDERS.includes(provider as ProviderName) || !isText(event) || !isText(entity) || !isRecord(headers) || !Object.values(headers).every(isText))
    return undefined;
  if (url !== undefined && !isText(url)) return undefined;
  return {
    path: raw['path'],
    meta: { provider: provider as ProviderName, event, entity, headers: headers as Record<string, string>, ...(url === undefined ? {} : { url }) },
  };
}

/** One run of a SQL console: its rows, or SQLite's message. */
export type RunOutcome =
  | {
      readonly kind: 'rows';
      readonly sql: string;
      readonly columns: readonly string[];
      readonly rows: readonly (readonly QueryValue[])[];
      readonly truncated: boolean;
      readonly rowsWritten?: number;
      readonly ms: number;
      /** The rows the run read, when `rows` keeps only the first of them (results restored after a reload). */
      readonly total?: number;
    }
  | { readonly kind: 'error'; readonly sql: string; readonly message: string };

/** A results panel's state: its console's URI, and the outcome it showed (the rows it drew). */
export interface ResultsPanelState {
  readonly console: string;
  readonly outcome?: RunOutcome;
}

/** A timeline panel's state: the instance, and the step it showed (its `seq`). */
export interface TimelinePanelState {
  readonly namespace: string;
  readonly name: string;
  readonly seq?: number;
}

const isValue = (value: unknown): value is QueryValue =>
  value === null || isText(value) || typeof value === 'number' || (isRecord(value) && isText(value['base64']));

function parseOutcome(raw: unknown): RunOutcome | undefined {
  if (!isRecord(raw) || !isText(raw['sql'])) return undefined;
  if (raw['kind'] === 'error') return isText(raw['message']) ? { kind: 'error', sql: raw['sql'], message: raw['message'] } : undefined;
  const { columns, rows, truncated, rowsWritten, ms, total } = raw;
  if (raw['kind'] !== 'rows' || !Array.isArray(columns) || !columns.every(isText) || !Array.isArray(rows) || typeof ms !== 'number') return undefined;
  if (!rows.every((row) => Array.isArray(row) && row.every(isValue))) return undefined;
  return {
    kind: 'rows',
    sql: raw['sql'],
    columns,
    rows: rows as QueryValue[][],
    truncated: truncated === true,
    ms,
    ...(typeof rowsWritten === 'number' ? { rowsWritten } : {}),
    ...(typeof total === 'number' ? { total } : {}),
  };
}

/**
 * The state a results panel keeps: at most `maxRows` of the outcome's rows, the ones it draws, and
 * how many there were (VS Code stores the state with the window's; a run can read 10,000 rows).
 */
export function resultsPanelState(console: string, outcome: RunOutcome | undefined, maxRows: number): ResultsPanelState {
  if (!outcome) return { console };
  return {
    console,
    outcome:
      outcome.kind === 'rows' && outcome.rows.length > maxRows
        ? { ...outcome, rows: outcome.rows.slice(0, maxRows), total: outcome.total ?? outcome.rows.length }
        : outcome,
  };
}

/** The state VS Code handed back, or undefined when it is not a results panel's. */
export function parseResultsPanelState(raw: unknown): ResultsPanelState | undefined {
  if (!isRecord(raw) || !isText(raw['console'])) return undefined;
  if (raw['outcome'] === undefined) return { console: raw['console'] };
  const outcome = parseOutcome(raw['outcome']);
  return outcome && { console: raw['console'], outcome };
}

/** The state VS Code handed back, or undefined when it is not a timeline panel's. */
export function parseTimelinePanelState(raw: unknown): TimelinePanelState | undefined {
  if (!isRecord(raw) || !isText(raw['namespace']) || !isText(raw['name'])) return undefined;
  const seq = raw['seq'];
  return { namespace: raw['namespace'], name: raw['name'], ...(typeof seq === 'number' ? { seq } : {}) };
}

/**
 * The page's script line that hands `state` to VS Code (`setState`), so the panel comes back with
 * it. The JSON is written into a script: `<` is escaped so that no value can end the script.
 */
export function setStateScript(state: ResultsPanelState | TimelinePanelState): string {
  return `vscode.setState(${JSON.stringify(state).replace(/</g, '\\u003c')});`;
}
