// A tree row's click under traffic (docs/explorer.md, "Under traffic"): VS Code keeps a row
// command's arguments in a cache that the row's next redraw empties, so a row of the Agents or
// Bindings view runs either a built-in API command (passed as it is) or its view's open-row command
// without arguments, and that command's action for the node still carries the node.
import '../../helpers/vscodeShim';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Emitter } from '../../../../src/core/events';
import { tablesTreeItem, type TablesNode } from '../../../../src/vscode/views/tablesNodes';
import { agentRowAction, AgentsTree, type AgentNode } from '../../../../src/vscode/views/agentsTree';
import { bindingRowAction, bindingTreeItem, type BindingNode } from '../../../../src/vscode/views/bindingNodes';
import { ExplorerModel, type ExplorerFeed } from '../../../../src/vscode/views/explorerModel';
import { SHOW_MORE_COMMAND } from '../../../../src/vscode/views/listTree';

/** Commands VS Code passes with their arguments as they are (no cache a redraw can empty). */
const API_COMMANDS = new Set(['vscode.open']);

function assertSafeClick(item: { command?: { command: string; arguments?: unknown[] } }, what: string): void {
  const command = item.command;
  assert.ok(command, `${what} has a click command`);
  if (API_COMMANDS.has(command.command)) return;
  assert.deepEqual(command.arguments ?? [], [], `${what}: ${command.command} carries no arguments`);
}

describe('row commands of the Agents and Bindings views', () => {
  const model = new ExplorerModel({ paceMs: 0 });
  const feed: ExplorerFeed = { model, client: undefined, onDidChange: model.onDidChange, schedule: () => undefined };
  const agents = new AgentsTree(feed, { list: () => [], connection: () => undefined, onDidChange: new Emitter<void>().event });
  const event = { id: 'e-1', type: 'push', action: null, title: 'zoe pushed', timestamp: '2026-11-28T08:00:00.000Z' };

  it('an Agents row runs no command with arguments, and its action names its node', () => {
    const nodes: AgentNode[] = [
      { kind: 'more', namespace: 'webhook-agent', remaining: 250 },
      { kind: 'more', namespace: 'webhook-agent', name: 'acme', remaining: 40 },
      { kind: 'event', namespace: 'remote:https://worker.example.com', name: 'acme', event: { ...event, payload: '{}' } },
    ];
    for (const node of nodes) {
      assertSafeClick(agents.getTreeItem(node), `a ${node.kind} row`);
      const action = agentRowAction(node);
      assert.ok(action, `a ${node.kind} row has an action`);
      assert.deepEqual(action.arguments, [node]);
    }
    assert.equal(agentRowAction(nodes[0]!)?.command, SHOW_MORE_COMMAND);
    assert.equal(agentRowAction(nodes[2]!)?.command, 'hookbench.event.openPayload');
  });

  it('a local event opens by its URI, the same from the row and from its action', () => {
    const node: AgentNode = { kind: 'event', namespace: 'webhook-agent', name: 'acme', event };
    const item = agents.getTreeItem(node);
    assertSafeClick(item, 'a local event row');
    assert.equal(item.command?.command, 'vscode.open');
    assert.equal(agentRowAction(node)?.command, 'vscode.open');
  });

  it('a table row under Tables browses the table through its action', () => {
    const table: TablesNode = { kind: 'table', namespace: 'webhook-agent', agent: 'WebhookAgent', name: 'acme', table: 'events', columns: [] };
    assertSafeClick(tablesTreeItem(table), 'a table row');
    assert.deepEqual(agentRowAction(table as AgentNode), { command: 'hookbench.sql.open', title: 'Browse Table', arguments: [table] });
  });

  it('a Bindings row runs no command with arguments: Show 100 more, a KV key, a D1 table', () => {
    const more: BindingNode = { kind: 'bindingsMore', id: 'kv:CACHE/#more', bindingId: 'kv:CACHE' };
    const key: BindingNode = {
      kind: 'item',
      id: 'kv:CACHE/a',
      label: 'a',
      icon: 'symbol-key',
      contextValue: 'hookbench.kvKey',
      command: { command: 'hookbench.bindings.openValue', title: 'Open Value', arguments: [{ binding: 'CACHE', key: 'a' }] },
    };
    for (const node of [more, key]) assertSafeClick(bindingTreeItem(node), `a ${node.kind} row`);
    assert.equal(bindingTreeItem(key).command?.title, 'Open Value');
    assert.deepEqual(bindingRowAction(more), { command: SHOW_MORE_COMMAND, title: 'Show 100 More', arguments: [more] });
    assert.deepEqual(bindingRowAction(key)?.arguments, [{ binding: 'CACHE', key: 'a' }]);
    // A row without an action (an R2 object) has no click command at all.
    const object: BindingNode = { kind: 'item', id: 'r2:B/x', label: 'x', icon: 'file', contextValue: 'hookbench.r2Object' };
    assert.equal(bindingTreeItem(object).command, undefined);
    assert.equal(bindingRowAction(object), undefined);
  });
});
