/**
 * Functions that run inside the rendered page (through `page.evaluate`), so they use only the DOM
 * and nothing from their module: links, scraped elements, and the page as Markdown.
 */
// These functions run in the page. The Node program has no DOM types, so the globals they touch
// are declared loosely here, for this module only.
/* eslint-disable @typescript-eslint/no-explicit-any */
type DomNode = any;
declare const document: any;
declare const Node: { TEXT_NODE: number; ELEMENT_NODE: number };
declare const getComputedStyle: (element: DomNode) => { visibility: string; display: string };
declare const location: { origin: string };
declare const window: any;
/** What the capture wait reads of an `<img>`. */
interface PageImage {
  readonly complete: boolean;
  readonly naturalWidth: number;
  decode(): Promise<void>;
}

export interface ScrapedElement {
  text: string;
  html: string;
  attributes: { name: string; value: string }[];
  height: number;
  width: number;
  top: number;
  left: number;
}

export function scrapeInPage(selectors: string[]): { selector: string; results: ScrapedElement[] }[] {
  return selectors.map((selector) => ({
    selector,
    results: Array.from(document.querySelectorAll(selector)).map((element: DomNode) => {
      const box = element.getBoundingClientRect();
      return {
        text: (element as DomNode).innerText ?? element.textContent ?? '',
        html: element.innerHTML,
        attributes: Array.from(element.attributes).map((a: DomNode) => ({ name: a.name, value: a.value })),
        height: box.height,
        width: box.width,
        top: box.top,
        left: box.left,
      };
    }),
  }));
}

export function linksInPage(visibleOnly: boolean, excludeExternal: boolean): string[] {
  const links: string[] = [];
  for (const anchor of Array.from(document.querySelectorAll('a[href]')) as DomNode[]) {
    if (visibleOnly) {
      const box = anchor.getBoundingClientRect();
      const style = getComputedStyle(anchor);
      if (box.width === 0 || box.height === 0 || style.visibility === 'hidden' || style.display === 'none') continue;
    }
    if (excludeExternal && anchor.origin !== location.origin) continue;
    links.push(anchor.href);
  }
  return links;
}

/** The page as Markdown: headings, paragraphs, emphasis, links, images, lists, code, quotes, rules, tables. */
export function markdownInPage(): string {
  const skip = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'SVG', 'IFRAME']);
  const inline = (node: DomNode): string => {
    if (node.nodeType === Node.TEXT_NODE) return (node.textContent ?? '').replace(/\s+/g, ' ');
    if (node.nodeType !== Node.ELEMENT_NODE) return '';
    const el = node as DomNode;
    if (skip.has(el.tagName)) return '';
    const inner = () => Array.from(el.childNodes).map(inline).join('');
    switch (el.tagName) {
      case 'STRONG':
      case 'B':
        return `**${inner().trim()}**`;
      case 'EM':
      case 'I':
        return `*${inner().trim()}*`;
      case 'CODE':
        return `\`${el.textContent ?? ''}\``;
      case 'A':
        return `[${inner().trim()}](${(el as DomNode).href})`;
      case 'IMG':
        return `![${el.getAttribute('alt') ?? ''}](${(el as DomNode).src})`;
      case 'BR':
        return '\n';
      default:
        return block(el) ?? inner();
    }
  };
  const list = (el: DomNode, ordered: boolean): string =>
    Array.from(el.children)
      .filter((li: DomNode) => li.tagName === 'LI')
      .map((li: DomNode, i: number) => `${ordered ? `${i + 1}.` : '-'} ${Array.from(li.childNodes).map(inline).join('').trim()}`)
      .join('\n');
  const table = (el: DomNode): string => {
    const rows = Array.from(el.querySelectorAll('tr')).map((tr: DomNode) =>
      Array.from(tr.children).map((cell: DomNode) => Array.from(cell.childNodes).map(inline).join('').trim().replace(/\|/g, '\\|')),
    );
    if (rows.length === 0) return '';
    const width = Math.max(...rows.map((r) => r.length));
    const line = (cells: string[]) => `| ${Array.from({ length: width }, (_, i) => cells[i] ?? '').join(' | ')} |`;
    return [line(rows[0]!), line(Array.from({ length: width }, () => '---')), ...rows.slice(1).map(line)].join('\n');
  };
  function block(el: DomNode): string | undefined {
    const text = () => Array.from(el.childNodes).map(inline).join('').trim();
    const heading = /^H([1-6])$/.exec(el.tagName);
    if (heading) return `\n\n${'#'.repeat(Number(heading[1]))} ${text()}\n\n`;
    switch (el.tagName) {
      case 'P':
        return `\n\n${text()}\n\n`;
      case 'UL':
        return `\n\n${list(el, false)}\n\n`;
      case 'OL':
        return `\n\n${list(el, true)}\n\n`;
      case 'PRE':
        return `\n\n\`\`\`\n${el.textContent ?? ''}\n\`\`\`\n\n`;
      case 'BLOCKQUOTE':
        return `\n\n${text()
          .split('\n')
          .map((l) => `> ${l}`)
          .join('\n')}\n\n`;
      case 'HR':
        return '\n\n---\n\n';
      case 'TABLE':
        return `\n\n${table(el)}\n\n`;
      case 'DIV':
      case 'SECTION':
      case 'ARTICLE':
      case 'MAIN':
      case 'HEADER':
      case 'FOOTER':
      case 'NAV':
        return `\n\n${text()}\n\n`;
      default:
        return undefined;
    }
  }
  const raw = document.body ? Array.from(document.body.childNodes).map(inline).join('') : '';
  return raw
    .split('\n')
    .map((l) => l.replace(/[ \t]+$/g, '').replace(/^ (?=\S)/, ''))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Scrolls to the bottom a screen at a time, so lazy content loads, then back to the top. */
export async function scrollThroughPage(): Promise<void> {
  for (let y = 0; y < document.body.scrollHeight; y += window.innerHeight) {
    window.scrollTo(0, y);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  window.scrollTo(0, 0);
}

/**
 * Resolves when every font the page uses has loaded (or failed), and every image that loaded is
 * decoded: Chromium decodes images apart from painting, and a busy machine can otherwise capture a
 * frame before a loaded image is drawn. Answers the page's title then, so the render needs no
 * second round trip to Chromium for its `meta`.
 */
export function fontsReadyInPage(): Promise<string> {
  const images = Array.from(document.images as ArrayLike<PageImage>, (image) =>
    image.complete && image.naturalWidth > 0 ? image.decode().catch(() => undefined) : undefined,
  );
  return Promise.all([document.fonts.ready, ...images]).then(() => document.title);
}
