/**
 * What the inspector's webviews share: HTML escaping, the strict Content Security Policy (nothing
 * but the page's own nonce'd style and script, no network, no images), the page frame, and how a
 * page posts its messages (declared in core/contract/panelMessages.ts): an element's click and a
 * key, each bound to a message built typed here.
 */
import type { PanelCommand } from '../../core/contract/panelMessages';

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** The attributes of an element whose click posts `message` (the page's script reads them back). */
export function commandAttributes(message: PanelCommand): string {
  return `data-command="${escapeHtml(message.command)}"${message.arg === undefined ? '' : ` data-arg="${escapeHtml(message.arg)}"`}`;
}

/** The script that posts `bindings[key]` when that key is pressed (`key` as KeyboardEvent.key names it). */
export function keyBindings(bindings: Readonly<Record<string, PanelCommand>>): string {
  // JSON inside a script element: `<` escaped, so no text can close the element.
  const keys = JSON.stringify(bindings).replace(/</g, '\\u003c');
  return `const KEYS = ${keys};\naddEventListener('keydown', (e) => { if (Object.hasOwn(KEYS, e.key)) vscode.postMessage(KEYS[e.key]); });`;
}

/** A whole page: `body` is trusted HTML built with escapeHtml; `script` runs under the nonce. */
export function page({ nonce, title, style, body, script }: { nonce: string; title: string; style: string; body: string; script: string }): string {
  const csp = `default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style nonce="${nonce}">
body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); padding: 0 12px; }
button { background: var(--vscode-button-secondaryBackground); color: var(--vscode-button-secondaryForeground); border: none; padding: 3px 10px; cursor: pointer; }
button:hover { background: var(--vscode-button-secondaryHoverBackground); }
button:disabled { opacity: .5; cursor: default; }
.toolbar { display: flex; gap: 6px; align-items: center; padding: 8px 0; position: sticky; top: 0; background: var(--vscode-editor-background); }
.muted { color: var(--vscode-descriptionForeground); }
.error { color: var(--vscode-errorForeground); white-space: pre-wrap; border-left: 3px solid var(--vscode-errorForeground); padding: 4px 8px; }
table { border-collapse: collapse; font-family: var(--vscode-editor-font-family); font-size: var(--vscode-editor-font-size); }
th, td { border: 1px solid var(--vscode-panel-border, #8884); padding: 2px 6px; text-align: left; vertical-align: top; max-width: 480px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
th { background: var(--vscode-editor-inactiveSelectionBackground); position: sticky; top: 36px; }
td.null { color: var(--vscode-descriptionForeground); font-style: italic; }
td.num { text-align: right; }
code { font-family: var(--vscode-editor-font-family); }
${style}
</style></head>
<body>${body}
<script nonce="${nonce}">
const vscode = acquireVsCodeApi();
// A click posts the PanelCommand commandAttributes wrote on the element.
for (const el of document.querySelectorAll('[data-command]')) el.addEventListener('click', () => vscode.postMessage({ type: 'command', command: el.dataset.command, arg: el.dataset.arg }));
${script}
</script></body></html>`;
}
