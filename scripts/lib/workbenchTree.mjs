// @ts-check
// A tree view of the workbench read and used as a person does: its rows as they show (label,
// description, depth, expanded or not), a row found by the labels leading to it and expanded by
// its twistie, brought into view with the mouse wheel (a workbench list renders only the rows in
// view), then clicked, hovered for its tooltip, or given a command from its context menu or its
// inline actions.

/**
 * @typedef {object} TreeRow
 * @property {number} index its place among the rows shown (from 0)
 * @property {number} level its depth (1: a root)
 * @property {string} label
 * @property {string} description
 * @property {boolean | null} expanded null when it cannot be expanded
 */

/**
 * @typedef {object} TreeStep
 * @property {string} view the title of the side bar's view (its section header)
 * @property {string[]} [path] the labels of the rows leading to the row the step is about, from a
 *   root; each is expanded on the way. A label written `/…/` is a regular expression. Empty: the roots.
 * @property {'children' | 'reveal' | 'click' | 'hover' | 'menu' | 'inline' | 'collapse'} [act] what to do
 *   (default `children`: answer the rows under it; `reveal`: bring it into view)
 * @property {string} [item] the context menu's item or the inline action's title, for `menu` and `inline`
 */

/** Resolves once the page has drawn two more frames: what a scroll or a key changed is on screen. */
export const drawn = (/** @type {import('puppeteer-core').Page} */ page) =>
  page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(undefined))))');

/**
 * Resolves after the element `selector` selects has next changed (rows drawn again, moved, or
 * relabelled), and the frame that shows it is drawn; rejects if it does not change within 20 s.
 * @param {import('puppeteer-core').Page} page @param {string} selector
 */
export async function redrawnOnce(page, selector) {
  await page.waitForSelector(selector, { timeout: 20_000 });
  await page.evaluate(`new Promise((resolve, reject) => {
    const target = document.querySelector(${JSON.stringify(selector)});
    if (!target) return reject(new Error('no ' + ${JSON.stringify(selector)} + ' to watch'));
    // A list that stopped moving has nothing to wait for: said, rather than waited on for ever.
    const timer = setTimeout(() => {
      observer.disconnect();
      reject(new Error(${JSON.stringify(selector)} + ' did not change within 20 s'));
    }, 20_000);
    const observer = new MutationObserver(() => {
      observer.disconnect();
      clearTimeout(timer);
      requestAnimationFrame(() => resolve(undefined));
    });
    observer.observe(target, { childList: true, subtree: true, attributes: true, characterData: true });
  })`);
}

/** The section header of the view titled `view`. */
const headerOf = (/** @type {string} */ view) => `.pane-header[aria-label^=${JSON.stringify(view)}]`;
/** The list of the view titled `view`. */
const listOf = (/** @type {string} */ view) => `.pane:has(> ${headerOf(view)}) .monaco-list`;
/** The list's own rows (sticky scroll holds copies of some above them, in a container of its own). */
const rowsOf = (/** @type {string} */ list) => `${list} .monaco-list-rows > .monaco-list-row`;
const rowOf = (/** @type {string} */ list, /** @type {number} */ index) => `${rowsOf(list)}[data-index="${index}"]`;

/**
 * The rows in view, in order.
 * @param {import('puppeteer-core').Page} page @param {string} list
 * @returns {Promise<TreeRow[]>}
 */
async function rowsInView(page, list) {
  const rows = await page.$$eval(rowsOf(list), (elements) =>
    elements.map((row) => ({
      index: Number(row.getAttribute('data-index')),
      level: Number(row.getAttribute('aria-level')),
      label: row.querySelector('.label-name')?.textContent?.trim() ?? '',
      description: row.querySelector('.label-description')?.textContent?.trim() ?? '',
      expanded: row.hasAttribute('aria-expanded') ? row.getAttribute('aria-expanded') === 'true' : null,
    })),
  );
  return rows.sort((a, b) => a.index - b.index);
}

/**
 * Turns the mouse wheel over the list by `deltaY` pixels.
 * @param {import('puppeteer-core').Page} page @param {string} list @param {number} deltaY
 */
async function wheel(page, list, deltaY) {
  const box = await (await page.$(list))?.boundingBox();
  if (!box) throw new Error(`no list ${list} on screen`);
  // Below the rows sticky scroll may hold at the top.
  await page.mouse.move(box.x + box.width / 2, box.y + box.height * 0.8);
  await page.mouse.wheel({ deltaY });
  await drawn(page);
}

/**
 * Looks at the rows from the top, in order, a page at a time (the list wheeled down as it goes),
 * until `visit` says `stop` or the last row was seen.
 * @param {import('puppeteer-core').Page} page @param {string} list
 * @param {(row: TreeRow) => 'stop' | void} visit
 */
async function scan(page, list, visit) {
  // An empty tree is not drawn: the view shows its welcome instead.
  const box = await (await page.$(list))?.boundingBox();
  if (!box) return;
  // The pointer rests on the list (below the rows sticky scroll may hold at the top) while it turns the wheel.
  await page.mouse.move(box.x + box.width / 2, box.y + box.height * 0.8);
  const turn = async (/** @type {number} */ deltaY) => {
    await page.mouse.wheel({ deltaY });
    await drawn(page);
  };
  for (let tries = 0; tries < 100 && (await rowsInView(page, list))[0]?.index !== 0; tries++) await turn(-3000);
  let next = 0;
  for (let stale = 0, pages = 0; stale < 2 && pages < 1000; pages++) {
    const before = next;
    for (const row of await rowsInView(page, list)) {
      if (row.index !== next) continue;
      if (visit(row) === 'stop') return;
      next++;
    }
    stale = next === before ? stale + 1 : 0;
    await turn(Math.max(44, box.height * 0.8));
  }
}

/**
 * Brings the row at `index` wholly into view.
 * @param {import('puppeteer-core').Page} page @param {string} list @param {number} index
 */
async function scrollTo(page, list, index) {
  for (let tries = 0; tries < 200; tries++) {
    const box = await (await page.$(list))?.boundingBox();
    // The rows sticky scroll holds at the top cover what scrolls under them.
    const sticky = await (await page.$(`${list} .monaco-tree-sticky-container`))?.boundingBox();
    const top = Math.max(box?.y ?? 0, sticky && sticky.height > 0 ? sticky.y + sticky.height : 0);
    const row = await (await page.$(rowOf(list, index)))?.boundingBox();
    if (box && row && row.y >= top - 1 && row.y + row.height <= box.y + box.height + 1) return;
    const rows = await rowsInView(page, list);
    const above = row ? row.y < top : index < (rows[0]?.index ?? 0);
    await wheel(page, list, above ? -(row ? top - row.y + 2 : 200) : row && box ? row.y + row.height - (box.y + box.height) + 2 : 200);
  }
  throw new Error(`row ${index} of ${list} never came into view`);
}

/**
 * Where a person points at a row: on its label, near its start (a long label runs past the
 * view's edge, so its middle may lie outside the view).
 * @param {import('puppeteer-core').Page} page @param {string} selector
 */
async function pointAt(page, selector) {
  const label = await (await page.$(`${selector} .label-name`))?.boundingBox();
  const row = await (await page.$(selector))?.boundingBox();
  if (!label || !row) throw new Error(`${selector} is not on screen`);
  return { x: label.x + Math.min(label.width / 2, 40), y: row.y + row.height / 2 };
}

/** @param {string} pattern @param {string} label */
const matches = (pattern, label) =>
  pattern.length > 1 && pattern.startsWith('/') && pattern.endsWith('/') ? new RegExp(pattern.slice(1, -1)).test(label) : pattern === label;

/**
 * Finds the row at the end of `path` (each row on the way expanded, as a user expands it; the
 * last one too when `open`) and the rows directly under it (the roots when `path` is empty).
 * @param {import('puppeteer-core').Page} page @param {string} list @param {string[]} path @param {boolean} open
 * @returns {Promise<{ row: TreeRow | undefined, children: TreeRow[] }>}
 */
async function resolve(page, list, path, open) {
  for (let expansions = 0; expansions <= path.length + 1; expansions++) {
    /** @type {TreeRow | undefined} */
    let row;
    /** @type {TreeRow | undefined} */
    let collapsed;
    /** @type {TreeRow[]} */
    const children = [];
    /** @type {string[]} */
    const seen = [];
    await scan(page, list, (r) => {
      if (row && r.level <= row.level) return 'stop';
      const depth = row ? row.level : 0;
      if (r.level !== depth + 1) return undefined;
      if (path.length === depth) return void children.push(r);
      seen.push(r.label);
      if (!matches(/** @type {string} */ (path[depth]), r.label)) return undefined;
      row = r;
      seen.length = 0;
      // Collapsed: expanded first, then looked at again.
      if (r.expanded === false && (open || r.level < path.length)) {
        collapsed = r;
        return 'stop';
      }
      return undefined;
    });
    if (collapsed) {
      await expand(page, list, collapsed);
      continue;
    }
    const depth = row ? row.level : 0;
    if (depth < path.length)
      throw new Error(
        `no row ${JSON.stringify(path[depth])} under ${JSON.stringify(path.slice(0, depth))} (there: ${seen.map((label) => JSON.stringify(label)).join(', ') || 'none'})`,
      );
    return { row, children };
  }
  throw new Error(`${JSON.stringify(path)} did not stay expanded`);
}

/**
 * Expands `row` by its twistie, and waits until its children show (or it shows none).
 * @param {import('puppeteer-core').Page} page @param {string} list @param {TreeRow} row
 */
async function expand(page, list, row) {
  await scrollTo(page, list, row.index);
  await page.click(`${rowOf(list, row.index)} .monaco-tl-twistie`);
  // Expanded, and its first child drawn under it (a row with no children shows none: the wait ends
  // without them, and the caller looks again).
  const self = `document.querySelector(${JSON.stringify(rowOf(list, row.index))})`;
  const next = `document.querySelector(${JSON.stringify(rowOf(list, row.index + 1))})`;
  await page
    .waitForFunction(`${self}?.getAttribute('aria-expanded') === 'true' && Number(${next}?.getAttribute('aria-level') ?? 0) > ${row.level}`, { timeout: 5_000 })
    .catch(() => undefined);
}

/**
 * Does a tree step (see TreeStep) in the workbench; answers the rows under the row for
 * `children`, the tooltip for `hover`.
 * @param {import('puppeteer-core').Page} page @param {TreeStep} step
 */
export async function treeStep(page, { view, path = [], act = 'children', item }) {
  const header = headerOf(view);
  await page.waitForSelector(header, { timeout: 20_000 });
  if ((await page.$eval(header, (h) => h.getAttribute('aria-expanded'))) === 'false') await page.click(header);
  const list = listOf(view);
  await page.waitForSelector(`${list}, .pane:has(> ${header}) .welcome-view`, { timeout: 20_000 });
  // A tree being drawn again (the live feed changed it) may miss a row for a moment: looked at
  // again once it was drawn again, until 20 s have gone by.
  /** @type {{ row: TreeRow | undefined, children: TreeRow[] } | undefined} */
  let found;
  for (const deadline = Date.now() + 20_000; !found;) {
    try {
      found = await resolve(page, list, path, act === 'children');
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await redrawnOnce(page, list).catch(() => {
        throw error;
      });
    }
  }
  const { row, children } = found;
  if (act === 'children') return children;
  if (!row) throw new Error(`${act} needs a row: give its path`);
  await scrollTo(page, list, row.index);
  const selector = rowOf(list, row.index);
  if (act === 'reveal') return undefined;
  if (act === 'collapse') {
    if (row.expanded) await page.click(`${selector} .monaco-tl-twistie`);
    return undefined;
  }
  if (act === 'click') {
    const { x, y } = await pointAt(page, selector);
    return void (await page.mouse.click(x, y));
  }
  if (act === 'hover') return hover(page, selector);
  if (act === 'inline') {
    const { x, y } = await pointAt(page, selector);
    await page.mouse.move(x, y);
    await page
      .locator(`${selector} .actions .action-label[aria-label^=${JSON.stringify(item ?? '')}]`)
      .setTimeout(5_000)
      .click();
    return undefined;
  }
  // The context menu is drawn in a shadow root of its own; it ignores a click that comes too soon
  // after it opened, so its item is pointed at and chosen with Enter, as from the keyboard, once
  // the menu shows it focused (an Enter before that chose nothing on a loaded machine).
  const { x, y } = await pointAt(page, selector);
  await page.mouse.click(x, y, { button: 'right' });
  const label = `.action-label[aria-label=${JSON.stringify(item ?? '')}]`;
  await page.locator(`>>> .monaco-menu .action-item:not(.disabled) ${label}`).setTimeout(5_000).hover();
  await page.locator(`>>> .monaco-menu .action-item.focused:not(.disabled) ${label}`).setTimeout(5_000).wait();
  await page.keyboard.press('Enter');
  return undefined;
}

/**
 * The tooltip the row shows when the pointer rests on it: its text, and the elements it renders
 * (links, images, code spans, scripts, frames) as HTML.
 * @param {import('puppeteer-core').Page} page @param {string} selector
 */
async function hover(page, selector) {
  // The workbench shows a tooltip only in a window that has the focus, which a headless one never
  // has: it is given it for the while.
  await page.emulateFocusedPage(true);
  try {
    const tooltip = '.monaco-hover:not(.hidden) .hover-contents, .workbench-hover .hover-contents';
    // Drawing a row again (the extension fired it or a node above it: a row's "5 s ago", the live
    // feed) sets its tooltip up anew, which drops the one the pointer was waiting out the delay for,
    // and the new one waits for the pointer to come onto the row: a person sees no tooltip come and
    // points at the row again. So does the step, each time the row is seen drawn again, and only
    // then; the tooltip must come within 20 s.
    const shows = `document.querySelector(${JSON.stringify(tooltip)})?.checkVisibility() === true`;
    for (const deadline = Date.now() + 20_000; ;) {
      await page.mouse.move(0, 0);
      await page.evaluate(`(() => {
        const row = document.querySelector(${JSON.stringify(selector)});
        window.hookbenchRowRedrawn = false;
        if (!row) return;
        const observer = new MutationObserver(() => {
          observer.disconnect();
          window.hookbenchRowRedrawn = true;
        });
        observer.observe(row, { childList: true, subtree: true, attributes: true, characterData: true });
      })()`);
      const { x, y } = await pointAt(page, selector);
      await page.mouse.move(x, y);
      await page.waitForFunction(`${shows} || window.hookbenchRowRedrawn === true`, { timeout: Math.max(1, deadline - Date.now()) });
      if (await page.evaluate(shows)) break;
    }
    // A tooltip the extension builds when asked (resolveTreeItem) first shows VS Code's
    // "Loading..." in the same place; what the user reads is the text that comes after it.
    const shown = await page.waitForFunction(
      `(() => {
        const element = [...document.querySelectorAll(${JSON.stringify(tooltip)})].find((candidate) => !/^(|Loading\\.\\.\\.|Loading…)$/.test((candidate.textContent ?? '').trim()));
        return element && { text: element.textContent ?? '', elements: [...element.querySelectorAll('a, img, code, script, iframe')].map((e) => e.outerHTML) };
      })()`,
      { timeout: 10_000 },
    );
    return await shown.jsonValue();
  } finally {
    await page.mouse.move(0, 0);
    await page.emulateFocusedPage(false);
  }
}
