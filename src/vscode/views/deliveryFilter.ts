/**
 * The Deliveries view's filter, as the user types it: `key:value` terms and free words, all of
 * which a delivery must match (docs/explorer.md, "Deliveries"). Keys: `provider`, `entity`,
 * `status` (`401`, `4xx`), `outcome` (`verified`, `rejected`, `duplicate`, `bad-signature`, or a
 * reason such as `stale`), `source` (`send`, `replay`, `smee`, `public`, `retry`, `outside`);
 * a free word matches the event type, entity, provider, path, source or verification.
 */
import type { DeliverySummary } from '../../core/contract/deliveries';
import { VERIFIED_NOTE, verificationReason } from '../../core/contract/notes';

export const FILTER_KEYS = ['provider', 'entity', 'status', 'outcome', 'source'] as const;
type FilterKey = (typeof FILTER_KEYS)[number];

export interface DeliveryFilter {
  /** As typed, trimmed: shown in the view's "filtered: …". */
  readonly text: string;
  readonly terms: readonly { readonly key: FilterKey; readonly value: string }[];
  readonly words: readonly string[];
}

/** The filter `text` names, or an error in one line (an unknown key, a status that is no status). */
export function parseDeliveryFilter(text: string): DeliveryFilter | { readonly error: string } {
  const terms: { key: FilterKey; value: string }[] = [];
  const words: string[] = [];
  for (const token of text.trim().split(/\s+/).filter(Boolean)) {
    const at = token.indexOf(':');
    if (at <= 0) {
      words.push(token.toLowerCase());
      continue;
    }
    const key = token.slice(0, at).toLowerCase();
    const value = token.slice(at + 1).toLowerCase();
    if (!(FILTER_KEYS as readonly string[]).includes(key)) return { error: `"${key}" is not a filter key: use ${FILTER_KEYS.join(', ')}, or a word to search` };
    if (value === '') return { error: `"${key}:" needs a value` };
    if (key === 'status' && !/^[1-5](\d\d|xx)$/.test(value)) return { error: `"${value}" is not a status: use 401 or 4xx` };
    terms.push({ key: key as FilterKey, value });
  }
  return { text: text.trim(), terms, words };
}

/** The words a delivery's outcome goes by: `verified`, `rejected`, `duplicate`, `bad-signature`, its reason. */
export function outcomeWords(d: DeliverySummary): string[] {
  const words = [d.status >= 200 && d.status < 300 ? 'accepted' : 'rejected'];
  if (d.verification === VERIFIED_NOTE) words.push('verified');
  const reason = verificationReason(d.verification);
  if (reason) words.push(reason, 'bad-signature');
  if (d.duplicate) words.push('duplicate');
  return words;
}

/** The words a delivery's source goes by: `send`, `replay`, the relay's or host's name, `outside` for any other client. */
export function sourceWords(d: DeliverySummary): string[] {
  const source = d.source;
  if (!source) return ['outside'];
  return [source.kind, source.name ?? ''].filter(Boolean).map((w) => w.toLowerCase());
}

function decodedPath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

function matchesTerm(d: DeliverySummary, key: FilterKey, value: string): boolean {
  switch (key) {
    case 'provider':
      return (d.provider ?? '').toLowerCase() === value;
    case 'entity':
      return (d.entity ?? '').toLowerCase().includes(value);
    case 'status':
      return value.endsWith('xx') ? String(d.status)[0] === value[0] : String(d.status) === value;
    case 'outcome':
      return outcomeWords(d).includes(value);
    case 'source':
      return sourceWords(d).some((w) => w.includes(value));
  }
}

/** True when `d` matches every term and every word of `filter`. */
export function matchesDelivery(d: DeliverySummary, filter: DeliveryFilter): boolean {
  if (!filter.terms.every((t) => matchesTerm(d, t.key, t.value))) return false;
  const haystack = [d.eventType, d.entity, d.provider, decodedPath(d.path), d.method, d.verification, String(d.status), ...outcomeWords(d), ...sourceWords(d)]
    .filter(Boolean)
    .join(' ')
    .toLowerCase();
  return filter.words.every((w) => haystack.includes(w));
}
