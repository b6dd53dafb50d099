/** The Outbound view: webhooks agents sent to the local sink, with their signature check. */
import * as vscode from 'vscode';
import { verificationReason, VERIFIED_NOTE } from '../../core/contract/notes';
import { droppedNote, type CaptureSummary } from '../../core/contract/sink';
import type { ExplorerChange, ExplorerFeed, ExplorerModel } from './explorerModel';
import { relativeTime } from './explorerSession';
import { ListTree } from './listTree';
import { textTooltip } from './tooltip';

export class OutboundTree extends ListTree<CaptureSummary> {
  constructor(session: ExplorerFeed) {
    super(session, 'outbound');
  }

  protected affectedBy(change: ExplorerChange): boolean {
    return change.captures;
  }

  protected keyOf(c: CaptureSummary): string {
    return c.id;
  }

  protected items(model: ExplorerModel): readonly CaptureSummary[] {
    return model.captures;
  }

  /** The sink keeps a byte budget (docs/admin-api.md): say when older captures made room for newer ones. */
  protected override note(model: ExplorerModel): string | undefined {
    return model.droppedCaptures > 0 ? droppedNote(model.droppedCaptures) : undefined;
  }

  protected treeItem(c: CaptureSummary): vscode.TreeItem {
    const verdict =
      c.verification === null
        ? 'not checked (no sink secret)'
        : c.verification === VERIFIED_NOTE
          ? 'signature valid'
          : `signature ${verificationReason(c.verification)!}`;
    const item = new vscode.TreeItem(`${c.sink} · ${c.body.length > 60 ? c.body.slice(0, 57) + '…' : c.body}`, vscode.TreeItemCollapsibleState.None);
    item.id = `o:${c.id}`;
    item.description = `${verdict} · ${relativeTime(c.time)}`;
    item.iconPath = new vscode.ThemeIcon(c.verification === VERIFIED_NOTE ? 'verified' : c.verification === null ? 'arrow-right' : 'unverified');
    item.tooltip = textTooltip([[`sink ${c.sink} · ${c.time}`], [`verification: ${c.verification ?? 'no sink secret set'}`]]);
    item.contextValue = 'hookbench.capture';
    return item;
  }
}
