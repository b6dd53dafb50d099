/**
 * The names of Hookbench's read-only delivery and event documents (scheme `hookbench`): what a
 * row of the Agents or Deliveries view opens, and what documents.ts reads when one opens. A leaf
 * both import, so the views name a document without reaching the code that reads it.
 */
import * as vscode from 'vscode';
import type { DeliverySummary } from '../core/contract/deliveries';
import type { EventRow } from '../core/contract/instances';
import { deliveryTitle } from './deliveryDocument';

export const SCHEME = 'hookbench';

/** What a delivery or event document's URI names. */
export type DocumentTarget =
  { readonly kind: 'delivery'; readonly id: string } | { readonly kind: 'event'; readonly namespace: string; readonly name: string; readonly id: string };

/** The delivery or event a `hookbench:` URI names; undefined for any other URI. */
export function documentTarget(uri: vscode.Uri): DocumentTarget | undefined {
  if (uri.scheme !== SCHEME) return undefined;
  const parts = uri.path.split('/').slice(1).map(decodeURIComponent);
  if (parts[0] === 'delivery' && parts[1]) return { kind: 'delivery', id: parts[1] };
  // Earlier tabs named the event in the file name (`<id>.json`); now a folder holds it, the title follows.
  if (parts[0] === 'event' && parts.length >= 4)
    return { kind: 'event', namespace: parts[1]!, name: parts[2]!, id: parts.length === 4 ? parts[3]!.replace(/\.json$/, '') : parts[3]! };
  return undefined;
}

/** An event's document: the tab reads "push · acme · 12:03:04". */
export function eventUri(namespace: string, name: string, event: Pick<EventRow, 'id' | 'type' | 'timestamp'>): vscode.Uri {
  const title = deliveryTitle({ eventType: event.type, entity: name, method: '', path: '', time: event.timestamp, status: 0 });
  return vscode.Uri.from({
    scheme: SCHEME,
    path: `/event/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}/${encodeURIComponent(event.id)}/${title}.http`,
  });
}

/** A delivery's document: the tab reads "push · acme · 12:03:04"; the id in the folder part finds the delivery. */
export function deliveryUri(d: Pick<DeliverySummary, 'id' | 'eventType' | 'entity' | 'method' | 'path' | 'time' | 'status'>): vscode.Uri {
  return vscode.Uri.from({ scheme: SCHEME, path: `/delivery/${encodeURIComponent(d.id)}/${deliveryTitle(d)}.http` });
}
