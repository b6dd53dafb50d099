/**
 * The Deliveries view: every request the receiver saw, newest first, each row named by what it was
 * (event type · entity) and how it went (status and outcome, where it came from, when); the full
 * detail is in its tooltip. The newest 100 first, then "Show 100 more". A filter (provider, entity,
 * status, outcome, source, free words) and Clear narrow what it shows; the view's title says so.
 * A click opens the delivery's document by its URI (`vscode.open`), which names the delivery by id:
 * nothing the click runs refers to a row VS Code may have dropped in a refresh.
 */
import * as vscode from 'vscode';
import type { DeliverySummary } from '../../core/contract/deliveries';
import { VERIFIED_NOTE, verificationReason } from '../../core/contract/notes';
import type { FailureReason } from '../../core/signing/types';
import { decodePath, sourceLabel } from '../deliveryDocument';
import { deliveryUri } from '../documentUris';
import { matchesDelivery, parseDeliveryFilter, type DeliveryFilter } from './deliveryFilter';
import type { ExplorerChange, ExplorerFeed, ExplorerModel } from './explorerModel';
import { relativeTime } from './explorerSession';
import { ListTree } from './listTree';
import { textTooltip } from './tooltip';
import { DUPLICATE_NOTE, type NextRetry } from '../../core/contract/deliveries';

export { sourceLabel } from '../deliveryDocument';

/** "retry 2 of 8 in 4 s" (or "retry 2 of 8 sent" once its time is past). */
export function retryLabel(next: NextRetry | undefined, now: number): string | undefined {
  if (!next) return undefined;
  const ms = Date.parse(next.at) - now;
  if (ms <= 0) return `retry ${next.retry} of ${next.retries} sent`;
  return `retry ${next.retry} of ${next.retries} in ${ms < 10_000 ? (ms / 1000).toFixed(1) : Math.round(ms / 1000)} s`;
}

/** A row's label: "push · acme-widgets", or the method and the decoded path when the worker named neither. */
export function deliveryLabel(d: DeliverySummary): string {
  if (!d.eventType && !d.entity) return `${d.method} ${decodePath(d.path)}`;
  return [d.eventType ?? d.method, d.entity ?? decodePath(d.path)].join(' · ');
}

/** A failed check's reason (src/core/signing/types.ts) as a row says it; an unknown one as it is. */
const REASON_LABELS: Readonly<Record<FailureReason, string>> = {
  mismatch: 'bad signature (mismatch)',
  malformed_header: 'bad signature header',
  missing_header: 'no signature header',
  no_secret: 'no secret set',
  invalid_secret: 'unusable secret',
  missing_url: 'no URL to check',
  stale: 'stale',
  too_new: 'timestamp in the future',
  body_mismatch: 'body does not match',
};

/** How it went, in words: "200 verified", "401 bad signature (mismatch)", "200 duplicate". */
export function outcomeLabel(d: DeliverySummary): string {
  const reason = verificationReason(d.verification);
  // A relay's note explains a mismatch; another reason (no_secret, stale) says more than the note.
  const why = reason === undefined ? undefined : d.source?.note && reason === 'mismatch' ? d.source.note : (REASON_LABELS[reason as FailureReason] ?? reason);
  const verdict = d.duplicate ? 'duplicate' : (why ?? (d.verification === VERIFIED_NOTE ? 'verified' : undefined));
  return [String(d.status), verdict].filter(Boolean).join(' ');
}

/** What the Deliveries view keeps in the workspace's state across a reload. */
export interface DeliveriesViewState {
  /** The filter as the user typed it. */
  readonly filter?: string;
  /** The last Clear (ISO time): deliveries received until then stay hidden. */
  readonly clearedAt?: string;
}

export class DeliveriesTree extends ListTree<DeliverySummary> {
  /** Public host names of the running tunnel, by provider: a delivery through it says "via ngrok". */
  readonly publicHosts = new Map<string, string>();
  private filter: DeliveryFilter | undefined;
  /** Deliveries received at or before this time are cleared from the view (the log keeps them). */
  private clearedAt: string | undefined;
  private readonly states = new vscode.EventEmitter<void>();
  /** The filter or the clear changed: the view's title and its Clear Filter button follow. */
  readonly onDidChangeFilter = this.states.event;

  constructor(session: ExplorerFeed) {
    super(session, 'deliveries');
  }

  get activeFilter(): DeliveryFilter | undefined {
    return this.filter;
  }

  /** Shows only the deliveries `filter` matches (none: all). */
  setFilter(filter: DeliveryFilter | undefined): void {
    this.filter = filter && (filter.terms.length > 0 || filter.words.length > 0) ? filter : undefined;
    this.states.fire();
    this.refresh();
  }

  /** Clears the view: what was received until now is no longer shown; what comes next is. */
  clear(now = new Date()): void {
    this.clearedAt = now.toISOString();
    this.states.fire();
    this.refresh();
  }

  /** The view's description: "filtered: status:4xx", "cleared 12:03:04", or nothing. */
  describe(): string | undefined {
    const parts = [
      this.filter ? `filtered: ${this.filter.text}` : undefined,
      this.clearedAt ? `cleared ${new Date(this.clearedAt).toTimeString().slice(0, 8)}` : undefined,
    ];
    return parts.filter(Boolean).join(' · ') || undefined;
  }

  /** True while a filter or a clear hides deliveries. */
  get narrowed(): boolean {
    return this.filter !== undefined || this.clearedAt !== undefined;
  }

  get cleared(): boolean {
    return this.clearedAt !== undefined;
  }

  /** The filter as typed and the last Clear, as kept across a reload (`restore` reads it back). */
  get kept(): DeliveriesViewState {
    return { ...(this.filter ? { filter: this.filter.text } : {}), ...(this.clearedAt ? { clearedAt: this.clearedAt } : {}) };
  }

  /**
   * Takes back what `kept` gave, read from storage: a part that does not parse is left out. Says
   * so (`onDidChangeFilter`) whatever it found, so the view's title and keys start from it.
   */
  restore(stored: unknown): void {
    const { filter, clearedAt } = typeof stored === 'object' && stored !== null ? (stored as Record<string, unknown>) : {};
    const parsed = typeof filter === 'string' ? parseDeliveryFilter(filter) : undefined;
    if (parsed && !('error' in parsed)) this.filter = parsed.terms.length > 0 || parsed.words.length > 0 ? parsed : undefined;
    if (typeof clearedAt === 'string' && !Number.isNaN(Date.parse(clearedAt))) this.clearedAt = new Date(clearedAt).toISOString();
    this.states.fire();
    this.refresh();
  }

  /** Shows everything again: no filter, no clear. */
  showAll(): void {
    this.filter = undefined;
    this.clearedAt = undefined;
    this.states.fire();
    this.refresh();
  }

  protected override shows(d: DeliverySummary): boolean {
    if (this.clearedAt !== undefined && d.time <= this.clearedAt) return false;
    return this.filter === undefined || matchesDelivery(d, this.filter);
  }

  // After Clear, the serve process's older pages hold only what Clear hid.
  protected override olderMayShow(items: readonly DeliverySummary[]): boolean {
    const cleared = this.clearedAt;
    return cleared === undefined || items.every((d) => d.time > cleared);
  }

  protected keyOf(d: DeliverySummary): string {
    return d.id;
  }

  protected affectedBy(change: ExplorerChange): boolean {
    return change.deliveries;
  }

  protected items(model: ExplorerModel): readonly DeliverySummary[] {
    return model.deliveries;
  }

  protected treeItem(d: DeliverySummary): vscode.TreeItem {
    const ok = d.status >= 200 && d.status < 300;
    const item = new vscode.TreeItem(deliveryLabel(d), vscode.TreeItemCollapsibleState.None);
    item.id = `d:${d.id}`;
    const from = sourceLabel(d.source, this.publicHosts);
    item.description = [outcomeLabel(d), from ?? 'outside', d.provider, retryLabel(d.nextRetry, Date.now()), relativeTime(d.time)].filter(Boolean).join(' · ');
    item.iconPath = ok
      ? new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed'))
      : new vscode.ThemeIcon(
          d.status >= 500 ? 'error' : 'warning',
          new vscode.ThemeColor(d.status >= 500 ? 'testing.iconFailed' : 'problemsWarningIcon.foreground'),
        );
    item.contextValue = ok ? 'hookbench.delivery' : 'hookbench.delivery.rejected';
    // `vscode.open` and a URI: VS Code passes the URI as it is, and the document reads the delivery by id.
    item.command = { command: 'vscode.open', title: 'Open Delivery', arguments: [deliveryUri(d), { preview: true }] };
    return item;
  }

  protected override tooltip(d: DeliverySummary): vscode.MarkdownString {
    const reason = verificationReason(d.verification);
    const from = sourceLabel(d.source, this.publicHosts);
    return textTooltip([
      [{ strong: String(d.status) }, ` ${d.method} ${decodePath(d.path)}`],
      [`${d.time} · ${d.durationMs.toFixed(1)} ms · ${d.requestBytes} bytes`],
      d.provider || d.eventType ? [`${d.provider ?? 'unknown provider'}${d.eventType ? ` · ${d.eventType}` : ''}`] : undefined,
      d.verification ? [`verification: ${d.verification}`] : undefined,
      reason === 'no_secret' ? ['Set the secret with Hookbench: Set Webhook Secret, then replay this delivery.'] : undefined,
      d.entity ? [`entity: ${d.entity}`] : undefined,
      [`from: ${from ?? 'another client (outside Hookbench)'}${d.source?.kind === 'public' ? ` (${d.source.name ?? ''}, a public URL)` : ''}`],
      d.source?.note
        ? [
            `${d.source.note}: the relay forwarded parsed JSON, not the bytes the provider signed, so the signature cannot match them. Use ngrok or a Cloudflare tunnel (Hookbench: Choose Expose Provider) to check signatures.`,
          ]
        : undefined,
      d.duplicate ? [`${DUPLICATE_NOTE}: the delivery id ${d.event ?? ''} was processed before`] : undefined,
      d.source?.kind === 'retry' ? [`the provider's retry ${d.source.retry ?? ''} of delivery ${d.source.of ?? ''} (serve --retries)`] : undefined,
      d.nextRetry
        ? [`retry ${d.nextRetry.retry} of ${d.nextRetry.retries} at ${d.nextRetry.at}, as the provider would (hookbench.receiver.retries)`]
        : undefined,
    ]);
  }
}
