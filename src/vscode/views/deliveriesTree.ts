/**
 * The Deliveries view: every request the receiver saw, newest first; rejected ones show their
 * status and why (a 401 says "stale", "mismatch", "no_secret"…). The newest 100 first, then
 * "Show 100 more".
 */
import * as vscode from 'vscode';
import type { DeliverySummary } from '../../core/contract/deliveries';
import { verificationReason } from '../../core/contract/notes';
import type { ExplorerChange, ExplorerFeed, ExplorerModel } from './explorerModel';
import { relativeTime } from './explorerSession';
import { ListTree } from './listTree';
import { textTooltip } from './tooltip';
import { DUPLICATE_NOTE, type DeliverySource, type NextRetry } from '../../core/contract/deliveries';

/** Where a delivery came from, in words: "local send", "replay", "via smee", "via ngrok". */
export function sourceLabel(source: DeliverySource | undefined, publicHosts: ReadonlyMap<string, string>): string | undefined {
  switch (source?.kind) {
    case 'send':
      return 'local send';
    case 'replay':
      return 'replay';
    case 'relay':
      return `via ${source.name === 'stripe' ? 'stripe listen' : (source.name ?? 'a relay')}`;
    case 'public':
      return `via ${publicHosts.get(source.name ?? '') ?? source.name ?? 'a public host'}`;
    case 'retry':
      return `provider retry ${source.retry ?? ''}`.trim();
    default:
      return undefined;
  }
}

/** "retry 2 of 8 in 4 s" (or "retry 2 of 8 sent" once its time is past). */
export function retryLabel(next: NextRetry | undefined, now: number): string | undefined {
  if (!next) return undefined;
  const ms = Date.parse(next.at) - now;
  if (ms <= 0) return `retry ${next.retry} of ${next.retries} sent`;
  return `retry ${next.retry} of ${next.retries} in ${ms < 10_000 ? (ms / 1000).toFixed(1) : Math.round(ms / 1000)} s`;
}

export class DeliveriesTree extends ListTree<DeliverySummary> {
  /** Public host names of the running tunnel, by provider: a delivery through it says "via ngrok". */
  readonly publicHosts = new Map<string, string>();

  constructor(session: ExplorerFeed) {
    super(session, 'deliveries');
  }

  protected affectedBy(change: ExplorerChange): boolean {
    return change.deliveries;
  }

  protected items(model: ExplorerModel): readonly DeliverySummary[] {
    return model.deliveries;
  }

  protected treeItem(d: DeliverySummary): vscode.TreeItem {
    const ok = d.status >= 200 && d.status < 300;
    const reason = verificationReason(d.verification);
    const item = new vscode.TreeItem(`${d.status} ${d.method} ${d.path}`, vscode.TreeItemCollapsibleState.None);
    item.id = `d:${d.id}`;
    const from = sourceLabel(d.source, this.publicHosts);
    // A relay's note explains a mismatch; another reason (no_secret, stale) says more than the note.
    const why = d.source?.note && (reason === undefined || reason === 'mismatch') ? d.source.note : reason;
    item.description = [d.provider, d.entity, why, d.duplicate ? DUPLICATE_NOTE : undefined, from, retryLabel(d.nextRetry, Date.now()), relativeTime(d.time)].filter(Boolean).join(' · ');
    item.iconPath = ok
      ? new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed'))
      : new vscode.ThemeIcon(d.status >= 500 ? 'error' : 'warning', new vscode.ThemeColor(d.status >= 500 ? 'testing.iconFailed' : 'problemsWarningIcon.foreground'));
    item.tooltip = textTooltip([
      [{ strong: String(d.status) }, ` ${d.method} ${d.path}`],
      [`${d.time} · ${d.durationMs.toFixed(1)} ms · ${d.requestBytes} bytes`],
      d.verification ? [`verification: ${d.verification}`] : undefined,
      reason === 'no_secret' ? ['Set the secret with Hookbench: Set Webhook Secret, then replay this delivery.'] : undefined,
      d.entity ? [`entity: ${d.entity}`] : undefined,
      from ? [`from: ${from}${d.source?.kind === 'public' ? ` (${d.source.name ?? ''}, a public URL)` : ''}`] : undefined,
      d.source?.note ? [`${d.source.note}: the relay forwarded parsed JSON, not the bytes the provider signed, so the signature cannot match them. Use ngrok or a Cloudflare tunnel (Hookbench: Choose Expose Provider) to check signatures.`] : undefined,
      d.duplicate ? [`${DUPLICATE_NOTE}: the delivery id ${d.event ?? ''} was processed before`] : undefined,
      d.source?.kind === 'retry' ? [`the provider's retry ${d.source.retry ?? ''} of delivery ${d.source.of ?? ''} (serve --retries)`] : undefined,
      d.nextRetry ? [`retry ${d.nextRetry.retry} of ${d.nextRetry.retries} at ${d.nextRetry.at}, as the provider would (hookbench.receiver.retries)`] : undefined,
    ]);
    item.contextValue = ok ? 'hookbench.delivery' : 'hookbench.delivery.rejected';
    item.command = { command: 'hookbench.delivery.open', title: 'Open Request and Response', arguments: [d] };
    return item;
  }
}
