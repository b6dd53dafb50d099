// The explorer's scenes: the README's (two entities' agents, a rejected delivery opened) and
// docs/explorer.md's at volume (300 entities paged with "Show 100 more", one expanded with the
// state its agent broadcast after a second webhook).
import * as vscode from 'vscode';
import type { HookbenchApi } from '../helpers';
import type { AgentNode } from '../../../src/vscode/views/agentsTree';
import { instancesNow, untilTree, withSecret } from '../helpers';
import { userDoes } from '../reporter';
import { capture, clearStage, deliver, row, SECRET, setViewOpen, widenSideBar } from './stage';
import { listed } from '../../../src/vscode/views/listTree';

export async function explorerScene(api: HookbenchApi): Promise<void> {
  const url = await withSecret(api, 'GITHUB_WEBHOOK_SECRET', SECRET);
  const repository = { full_name: 'acme/widgets' };
  await deliver(url, 'acme%2Fwidgets', 'push', 'readme-1', { ref: 'refs/heads/main', repository, pusher: { name: 'zoe' }, commits: [{ id: 'a1b2c3', message: 'Fix invoice rounding' }] });
  await deliver(url, 'acme%2Fwidgets', 'pull_request', 'readme-2', { action: 'opened', number: 42, pull_request: { number: 42, title: 'Render invoices as PDF' }, repository });
  await deliver(url, 'acme%2Fwidgets', 'issues', 'readme-3', { action: 'labeled', issue: { number: 7, title: 'Webhook retries' }, repository });
  await deliver(url, 'acme%2Fgadgets', 'push', 'readme-4', { ref: 'refs/heads/main', repository: { full_name: 'acme/gadgets' }, commits: [] });
  await deliver(url, 'acme%2Fwidgets', 'push', 'readme-5', { ref: 'refs/heads/main', repository }, { secret: 'a-forged-secret', expected: 401 });
  await vscode.commands.executeCommand('workbench.view.extension.hookbench');
  await untilTree(api, () => instancesNow(api), (instances) => instances.length === 2);
  // The tree has no getParent for every node (reveal needs one): open the rows as a user does, by clicking them.
  await userDoes({ click: row(2, 'acme-widgets') });
  await userDoes({ click: row(3, 'State') });
  await userDoes({ click: row(3, 'Events') });
  // The rejected delivery, as received and answered, beside the views.
  const [newest] = await api.trees.deliveries.getChildren();
  await vscode.commands.executeCommand('hookbench.delivery.open', newest);
  // A narrower editor leaves the side bar wide enough for the items' descriptions.
  await widenSideBar(4);
  await capture('explorer');
  await widenSideBar(-4);
}

const ENTITIES = 300;
/** The instance expanded on the first page, near its end so that "Show 100 more" shows below it. */
const EXPANDED = 'vol-092';

type InstanceNode = Extract<AgentNode, { kind: 'instance' }>;
const instanceNodes = (nodes: AgentNode[]) => nodes.filter((n): n is InstanceNode => n.kind === 'instance');

export async function volumeScene(api: HookbenchApi): Promise<void> {
  const url = await withSecret(api, 'GITHUB_WEBHOOK_SECRET', SECRET);
  await clearStage();
  // The Agents view alone in the side bar: Deliveries and Outbound folded away.
  await setViewOpen(api, 'hookbench.deliveries', 'Deliveries', false);
  await setViewOpen(api, 'hookbench.outbound', 'Outbound', false);
  const names = Array.from({ length: ENTITIES }, (_, i) => `vol-${String(i).padStart(3, '0')}`);
  for (let start = 0; start < names.length; start += 20) {
    await Promise.all(names.slice(start, start + 20).map((name) => deliver(url, name, 'push', `vol-${name}`, { ref: 'refs/heads/main', repository: { full_name: `acme/${name}` }, pusher: { name: 'zoe' }, commits: [] })));
  }
  const page = await untilTree(api, () => instancesNow(api), (nodes) => nodes.some((n) => n.kind === 'more' && (n.remaining ?? 0) >= ENTITIES - 100), 60_000);
  const more = page.find((n) => n.kind === 'more')!;
  const instance = instanceNodes(page).find((n) => n.name === EXPANDED);
  if (!instance) throw new Error(`${EXPANDED} is not on the first page: ${instanceNodes(page).map((n) => n.name).join(', ')}`);

  // Expanded with its State open: from now on its state is the agent's own broadcast.
  const [state] = await api.trees.agents.getChildren(instance);
  if (state?.kind !== 'state') throw new Error(`${EXPANDED}'s first child is ${state?.kind}, not its state`);
  await api.views['hookbench.agents'].reveal(state, { expand: true, select: false });
  await untilTree(api, async () => api.explorer.model.readPath(instance.namespace, instance.name), (read) => read.channel);
  // A second webhook to it: the State shown changes with no admin request.
  await deliver(url, EXPANDED, 'issues', `${EXPANDED}-issue`, { action: 'opened', issue: { number: 12, title: 'Paging the Agents view' }, repository: { full_name: `acme/${EXPANDED}` } });
  const total = async () => {
    const [now] = await api.trees.agents.getChildren(instance);
    return now?.kind === 'state' ? (now.state as { stats?: { total: number } } | null)?.stats?.total : undefined;
  };
  await untilTree(api, total, (n) => n === 2);
  // The webhook that changed it, as received, beside the view.
  const issues = async () => listed(await api.trees.deliveries.getChildren()).filter((d) => d.entity === EXPANDED && d.requestHeaders['x-github-event'] === 'issues');
  const [issue] = await untilTree(api, issues, (list) => list.length === 1);
  await vscode.commands.executeCommand('hookbench.delivery.open', issue);
  await widenSideBar(3);
  // The instance selected, and the page scrolled down to the "Show 100 more" below it.
  await api.views['hookbench.agents'].reveal(instance, { select: true, focus: true });
  await api.views['hookbench.agents'].reveal(more, { select: false, focus: false });
  await capture('explorer-paged');
  await widenSideBar(-3);
  await setViewOpen(api, 'hookbench.deliveries', 'Deliveries', true);
  await setViewOpen(api, 'hookbench.outbound', 'Outbound', true);
}
