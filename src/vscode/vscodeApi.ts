/**
 * The `vscode` module, imported once: esbuild.js resolves every other `import * as vscode from
 * 'vscode'` of the extension's bundle to this module. Each import of the external module itself
 * becomes its own `__toESM(require('vscode'))`, which copies all of the API's several hundred
 * properties, once per importer, a large part of the bundle's evaluation in VS Code's extension
 * host (docs/performance.md, "Extension activation"). Through here they are copied once.
 */
export * from 'vscode';
