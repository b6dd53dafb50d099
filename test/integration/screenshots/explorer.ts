// The explorer's scenes: the README's (two entities' agents, a rejected delivery opened) and
// docs/explorer.md's at volume (300 entities paged with "Show 100 more", one expanded with the
// state its agent broadcast after a second webhook).
import * as vscode from 'vscode';
import { adminClient, withSecret, type HookbenchApi } from '../helpers';
import { userDoes } from '../reporter';
import { clickRow, revealRow, rowsUnder, untilRows, type TreeRow } from '../treeViews';
import { capture, clearStage, deliver, row, SECRET, setViewOpen, widenSideBar } from './stage';

export async function explorerScene(api: HookbenchApi): Promise<void> {
  const url = await withSecret(api, 'GITHUB_WEBHOOK_SECRET', SECRET);
  const repository = { full_name: 'acme/widgets' };
  await deliver(url, 'acme%2Fwidgets', 'push', 'readme-1', {
    ref: 'refs/heads/main',
    repository,
    pusher: { name: 'zoe' },
    commits: [{ id: 'a1b2c3', message: 'Fix invoice rounding' }],
  });
  await deliver(url, 'acme%2Fwidgets', 'pull_request', 'readme-2', {
    action: 'opened',
    number: 42,
    pull_request: { number: 42, title: 'Render invoices as PDF' },
    repository,
  });
  await deliver(url, 'acme%2Fwidgets', 'issues', 'readme-3', { action: 'labeled', issue: { number: 7, title: 'Webhook retries' }, repository });
  await deliver(url, 'acme%2Fgadgets', 'push', 'readme-4', { ref: 'refs/heads/main', repository: { full_name: 'acme/gadgets' }, commits: [] });
  await deliver(url, 'acme%2Fwidgets', 'push', 'readme-5', { ref: 'refs/heads/main', repository }, { secret: 'a-forged-secret', expected: 401 });
  await vscode.commands.executeCommand('workbench.view.extension.hookbench');
  await untilRows('Agents', ['webhook-agent'], (instances) => instances.length === 2);
  // The tree has no getParent for every node (reveal needs one): open the rows as a user does, by clicking them.
  await userDoes({ click: row(2, 'acme-widgets') });
  await userDoes({ click: row(3, 'State') });
  await userDoes({ click: row(3, 'Events') });
  // The rejected delivery, as received and answered, beside the views.
  const [newest] = await rowsUnder('Deliveries');
  await clickRow('Deliveries', [newest!.label]);
  // A narrower editor leaves the side bar wide enough for the items' descriptions.
  await widenSideBar(4);
  await capture('explorer');
  await widenSideBar(-4);
}

const ENTITIES = 300;
/** The instance expanded on the first page, near its end so that "Show 100 more" shows below it. */
const EXPANDED = 'vol-092';

const MORE = 'Show 100 more';
/** How many instances the "Show 100 more" row says are not shown (0 without it). */
const notShown = (rows: TreeRow[]) => Number(/^(\d+) not shown$/.exec(rows.find((r) => r.label === MORE)?.description ?? '')?.[1] ?? 0);

export async function volumeScene(api: HookbenchApi): Promise<void> {
  const url = await withSecret(api, 'GITHUB_WEBHOOK_SECRET', SECRET);
  await clearStage();
  // The Agents view alone in the side bar: Deliveries and Outbound folded away.
  await setViewOpen('Deliveries', false);
  await setViewOpen('Outbound', false);
  const names = Array.from({ length: ENTITIES }, (_, i) => `vol-${String(i).padStart(3, '0')}`);
  for (let start = 0; start < names.length; start += 20) {
    await Promise.all(
      names.slice(start, start + 20).map((name) =>
        deliver(url, name, 'push', `vol-${name}`, {
          ref: 'refs/heads/main',
          repository: { full_name: `acme/${name}` },
          pusher: { name: 'zoe' },
          commits: [],
        }),
      ),
    );
  }
  const page = await untilRows('Agents', ['webhook-agent'], (rows) => notShown(rows) >= ENTITIES - 100, 60_000);
  if (!page.some((r) => r.label === EXPANDED)) throw new Error(`${EXPANDED} is not on the first page: ${page.map((r) => r.label).join(', ')}`);

  // Expanded with its State open: from now on its state is the agent's own broadcast (the explorer holds a connection to it).
  const instance = ['webhook-agent', EXPANDED];
  await rowsUnder('Agents', [...instance, 'State']);
  const client = await adminClient(api);
  for (const deadline = Date.now() + 15_000; !(await client.instances()).some((i) => i.name === EXPANDED && i.connections > 0);) {
    if (Date.now() > deadline) throw new Error(`the explorer does not read ${EXPANDED} over its agent's WebSocket`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  // A second webhook to it: the State shown changes with no admin request.
  await deliver(url, EXPANDED, 'issues', `${EXPANDED}-issue`, {
    action: 'opened',
    issue: { number: 12, title: 'Paging the Agents view' },
    repository: { full_name: `acme/${EXPANDED}` },
  });
  await untilRows('Agents', [...instance, 'State', 'stats'], (rows) => rows.find((r) => r.label === 'total')?.description === '2');
  // The webhook that changed it, as received, beside the view.
  const issue = (await client.deliveries(50)).find((d) => d.entity === EXPANDED && d.requestHeaders['x-github-event'] === 'issues');
  if (!issue) throw new Error(`no issues delivery to ${EXPANDED}`);
  await vscode.commands.executeCommand('hookbench.delivery.open', issue);
  await widenSideBar(3);
  // The instance in view, and the page scrolled down to the "Show 100 more" below it.
  await revealRow('Agents', instance);
  await revealRow('Agents', ['webhook-agent', MORE]);
  await capture('explorer-paged');
  await widenSideBar(-3);
  await setViewOpen('Deliveries', true);
  await setViewOpen('Outbound', true);
}
