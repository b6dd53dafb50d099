/**
 * Hovers that show payload text (titles, paths, entity names, verification reasons) as text, never
 * as Markdown: a PR title of `![x](https://tracker.example/p.png)` or `[run](command:…)` must not
 * load a remote image, draw a link or break out of a code span. Only the bold labels Hookbench
 * writes itself are Markdown; the hover is untrusted, with no HTML and no theme icons.
 */
import * as vscode from 'vscode';

/** A label Hookbench wrote, shown in bold. */
export interface Strong {
  readonly strong: string;
}

export type Piece = string | Strong;

/** One paragraph per line; strings are escaped with appendText. */
export function textTooltip(lines: ReadonlyArray<ReadonlyArray<Piece> | undefined>): vscode.MarkdownString {
  const md = new vscode.MarkdownString('', false);
  md.isTrusted = false;
  md.supportHtml = false;
  let first = true;
  for (const line of lines) {
    if (!line || line.length === 0) continue;
    if (!first) md.appendMarkdown('\n\n');
    first = false;
    for (const piece of line) {
      if (typeof piece === 'string') md.appendText(piece);
      else {
        md.appendMarkdown('**');
        md.appendText(piece.strong);
        md.appendMarkdown('**');
      }
    }
  }
  return md;
}
