/**
 * The Deliveries view: every request the receiver saw, newest first; rejected ones show their
 * status and why (a 401 says "stale", "mismatch", "no_secret"…).
 */
import * as vscode from 'vscode';
import type { AdminClient, DeliverySummary } from '../client/adminClient';
import { relativeTime } from './explorerSession';
import { ListTree } from './listTree';
import { textTooltip } from './tooltip';
import { DUPLICATE_NOTE } from '../../core/contract/deliveries';

export class DeliveriesTree extends ListTree<DeliverySummary> {
  protected load(client: AdminClient): Promise<DeliverySummary[]> {
    return client.deliveries(200);
  }

  getTreeItem(d: DeliverySummary): vscode.TreeItem {
    const ok = d.status >= 200 && d.status < 300;
    const reason = d.verification && d.verification !== 'valid' ? d.verification.split(':')[0] : undefined;
    const item = new vscode.TreeItem(`${d.status} ${d.method} ${d.path}`, vscode.TreeItemCollapsibleState.None);
    item.id = `d:${d.id}`;
    item.description = [d.provider, d.entity, reason, d.duplicate ? DUPLICATE_NOTE : undefined, relativeTime(d.time)].filter(Boolean).join(' · ');
    item.iconPath = ok
      ? new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed'))
      : new vscode.ThemeIcon(d.status >= 500 ? 'error' : 'warning', new vscode.ThemeColor(d.status >= 500 ? 'testing.iconFailed' : 'problemsWarningIcon.foreground'));
    item.tooltip = textTooltip([
      [{ strong: String(d.status) }, ` ${d.method} ${d.path}`],
      [`${d.time} · ${d.durationMs.toFixed(1)} ms · ${d.requestBytes} bytes`],
      d.verification ? [`verification: ${d.verification}`] : undefined,
      d.verification?.startsWith('no_secret') ? ['Set the secret with Hookbench: Set Webhook Secret, then replay this delivery.'] : undefined,
      d.entity ? [`entity: ${d.entity}`] : undefined,
      d.duplicate ? [`${DUPLICATE_NOTE}: the delivery id ${d.event ?? ''} was processed before`] : undefined,
    ]);
    item.contextValue = ok ? 'hookbench.delivery' : 'hookbench.delivery.rejected';
    item.command = { command: 'hookbench.delivery.open', title: 'Open Request and Response', arguments: [d] };
    return item;
  }
}
