// Runs inside the render-preview webview. It talks to the extension only through postMessage.
declare function acquireVsCodeApi(): { postMessage(message: unknown): void };

const vscode = acquireVsCodeApi();
vscode.postMessage({ type: 'ready' });
