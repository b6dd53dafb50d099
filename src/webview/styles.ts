// The preview's layout, in VS Code's theme colours and fonts only.
export const STYLES = `
body { padding: 0; color: var(--vscode-foreground); font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); }
#app { display: grid; grid-template-columns: minmax(300px, 380px) 1fr; gap: 16px; padding: 12px 16px; min-height: 100vh; box-sizing: border-box; }
@media (max-width: 760px) { #app { grid-template-columns: 1fr; } }
.left { display: flex; flex-direction: column; gap: 12px; }
.form { display: flex; flex-direction: column; gap: 4px; }
.row { display: flex; gap: 8px; align-items: flex-start; flex-wrap: wrap; }
.row > * { flex: 1 1 0; min-width: 70px; }
vscode-textfield, vscode-textarea, vscode-single-select { width: 100%; }
.custom-font { border-left: 2px solid var(--vscode-focusBorder); padding-left: 8px; }
.file-name { color: var(--vscode-descriptionForeground); align-self: center; }
.toolbar { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
.status { color: var(--vscode-descriptionForeground); }
.status[data-kind="error"] { color: var(--vscode-errorForeground); }
.right { min-width: 0; }
.capture-area { border: 1px solid var(--vscode-panel-border); background: var(--vscode-editorWidget-background); min-height: 120px; overflow: auto; }
.capture { display: block; max-width: 100%; height: auto; }
.capture[data-zoom="actual"] { max-width: none; }
.capture-area[data-stale], .report-area[data-stale] { opacity: 0.4; }
.zoom-bar { display: flex; gap: 6px; align-items: center; margin-bottom: 6px; color: var(--vscode-descriptionForeground); }
.warnings { border: 1px solid var(--vscode-inputValidation-warningBorder); background: var(--vscode-inputValidation-warningBackground); padding: 6px 10px; margin-bottom: 8px; }
.warnings .warning { margin: 2px 0; }
.failure { padding: 12px; color: var(--vscode-errorForeground); border-left: 3px solid var(--vscode-inputValidation-errorBorder); white-space: pre-wrap; }
.field-error { color: var(--vscode-errorForeground); font-size: 0.9em; }
.field-error:empty { display: none; }
.html-file-row { align-items: center; }
.html-file-row > vscode-button { flex: 0 0 auto; }
.html-file { color: var(--vscode-descriptionForeground); }
.pdf-page { display: block; width: 100%; height: auto; margin-bottom: 8px; box-shadow: 0 0 4px var(--vscode-widget-shadow); }
h2 { font-size: 1.1em; font-weight: 600; margin: 16px 0 4px; }
.summary { color: var(--vscode-descriptionForeground); margin: 0 0 6px; }
table.report { border-collapse: collapse; width: 100%; }
table.report th, table.report td { text-align: left; vertical-align: top; padding: 4px 6px; border-bottom: 1px solid var(--vscode-panel-border); }
table.report th { color: var(--vscode-descriptionForeground); font-weight: 600; }
[hidden] { display: none !important; }
tr.fallback td:first-child { color: var(--vscode-editorWarning-foreground); }
tr.ok td:first-child { color: var(--vscode-testing-iconPassed); }
.sample { color: var(--vscode-descriptionForeground); }
code { font-family: var(--vscode-editor-font-family); }
`;
