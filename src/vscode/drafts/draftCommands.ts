/**
 * The draft loop: Send Test Webhook opens a draft; Send (the editor title's button, Ctrl+Alt+Enter,
 * or the CodeLens) signs it with the stored secret and posts it, as a new delivery each time;
 * the draft stays open to edit and send again. Invalid JSON is flagged before anything is sent.
 */
import * as vscode from 'vscode';
import type { DisposableStore } from '../../core/events';
import type { Logger } from '../../core/log';
import { asNewDelivery } from '../../core/payloads';
import { webhookPath } from '../../core/contract/webhookRoutes';
import { schemeFor } from '../../core/signing';
import { registerCommand } from '../commands';
import { SendError, type Sender, type SendResult } from '../sender';
import { DRAFT_SCHEME, DraftFiles, type DraftMeta } from './draftFiles';

/** Where a draft goes when it names no URL: /webhooks/<provider>[/<entity>] on the local receiver. */
export function localTarget(base: string, meta: DraftMeta): string {
  return `${base}${webhookPath(meta.provider, meta.entity)}`;
}

/** Where the JSON stops parsing, as "line L, column C: message", or undefined when it parses. */
export function jsonProblem(text: string): string | undefined {
  try {
    JSON.parse(text);
    return undefined;
  } catch (error) {
    const message = (error as Error).message;
    const at = /position (\d+)/.exec(message);
    if (!at) return message;
    const before = text.slice(0, Number(at[1]));
    const line = before.split('\n').length;
    return `line ${line}, column ${before.length - before.lastIndexOf('\n')}: ${message.replace(/ in JSON at position \d+.*$/, '')}`;
  }
}

/** The URIs of the text documents the tabs of every group show now. */
function openTabUris(): Set<string> {
  return new Set(
    vscode.window.tabGroups.all.flatMap((group) => group.tabs.map((tab) => (tab.input instanceof vscode.TabInputText ? tab.input.uri.toString() : ''))),
  );
}

/**
 * A draft whose last tab the user closes is discarded, as an untitled file closed without saving
 * is. A window that reloads or closes keeps its tabs, so its drafts stay for their restored tabs.
 */
function discardClosedDrafts(files: DraftFiles): vscode.Disposable {
  return vscode.window.tabGroups.onDidChangeTabs(({ closed }) => {
    const open = openTabUris();
    for (const tab of closed) {
      if (tab.input instanceof vscode.TabInputText && tab.input.uri.scheme === DRAFT_SCHEME && !open.has(tab.input.uri.toString())) files.delete(tab.input.uri);
    }
  });
}

/** `folder`: where drafts are kept (the workspace's private storage), so their tabs come back after a reload. */
export function registerDraftCommands(store: DisposableStore, logger: Logger, sender: Sender, folder: string): DraftFiles {
  const files = new DraftFiles(folder);
  store.add(vscode.workspace.registerFileSystemProvider(DRAFT_SCHEME, files, { isCaseSensitive: true }));
  store.add(discardClosedDrafts(files));

  // Drafts save themselves to memory as they change: never a "save changes?" prompt.
  const timers = new Map<string, NodeJS.Timeout>();
  store.add(
    vscode.workspace.onDidChangeTextDocument(({ document }) => {
      if (document.uri.scheme !== DRAFT_SCHEME || !document.isDirty) return;
      clearTimeout(timers.get(document.uri.path));
      timers.set(
        document.uri.path,
        setTimeout(() => void document.save(), 150),
      );
    }),
  );
  store.add({ dispose: () => timers.forEach((t) => clearTimeout(t)) });

  const lenses = new vscode.EventEmitter<void>();
  store.add(lenses);
  store.add(
    vscode.languages.registerCodeLensProvider(
      { scheme: DRAFT_SCHEME },
      {
        onDidChangeCodeLenses: lenses.event,
        provideCodeLenses: (document) => {
          const meta = files.meta(document.uri);
          if (!meta) return [];
          const top = new vscode.Range(0, 0, 0, 0);
          const target = meta.url ?? 'the local receiver';
          return [
            new vscode.CodeLens(top, {
              title: `$(send) Send ${meta.provider} ${meta.event} to ${target}`,
              command: 'hookbench.draft.send',
              arguments: [document.uri],
            }),
            new vscode.CodeLens(top, { title: 'Send to another URL…', command: 'hookbench.draft.sendTo', arguments: [document.uri] }),
          ];
        },
      },
    ),
  );

  const documentOf = (raw: unknown): vscode.TextDocument | undefined => {
    const uri = raw instanceof vscode.Uri ? raw : vscode.window.activeTextEditor?.document.uri;
    if (!uri || uri.scheme !== DRAFT_SCHEME) return undefined;
    return vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  };

  const send = async (raw: unknown, options: { confirmInvalid?: boolean } = {}): Promise<SendResult | undefined> => {
    const document = documentOf(raw);
    const meta = document && files.meta(document.uri);
    if (!document || !meta) throw new SendError('Open a payload draft (Hookbench: Send Test Webhook) to send it.');
    // What is sent is what is saved: the draft never asks to be saved later.
    if (document.isDirty) await document.save();
    const text = document.getText();
    const isJson = (meta.headers['content-type'] ?? '').includes('json');
    const problem = isJson ? jsonProblem(text) : undefined;
    if (problem && options.confirmInvalid !== false) {
      const choice = await vscode.window.showWarningMessage(
        `The payload is not valid JSON (${problem}).`,
        { modal: true, detail: 'The provider would never send this. Send it anyway to see how your receiver answers?' },
        'Send Anyway',
      );
      if (choice !== 'Send Anyway') return undefined;
    }
    const secret = await sender.secretFor(meta.provider);
    if (!secret) return undefined;
    const url = meta.url ?? localTarget(await sender.localBase(), meta);
    // Each send is a new delivery: a fresh delivery id, so the receiver processes it again.
    const fresh = asNewDelivery(meta.provider, meta.headers, Buffer.from(text, 'utf8'));
    const signed = schemeFor(meta.provider).sign({ secret, body: fresh.body, url, id: fresh.id });
    return sender.post(signed.url ?? url, { ...fresh.headers, ...signed.headers }, fresh.body, `${meta.provider} ${meta.event}`);
  };

  // `confirmInvalid: false` sends invalid JSON without asking (tests and scripts that mean it).
  registerCommand(store, logger, 'hookbench.draft.send', (raw?: unknown, options?: unknown) => send(raw, (options ?? {}) as { confirmInvalid?: boolean }));
  registerCommand(store, logger, 'hookbench.draft.sendTo', async (raw?: unknown) => {
    const document = documentOf(raw);
    const meta = document && files.meta(document.uri);
    if (!document || !meta) return undefined;
    const url = await vscode.window.showInputBox({
      title: 'Send to URL',
      prompt: 'A tunnel, a deployed worker, another tool. Empty: back to the local receiver.',
      value: meta.url ?? '',
      validateInput: (v) => (v === '' || /^https?:\/\/[^/]/.test(v) ? undefined : 'An http(s) URL'),
    });
    if (url === undefined) return undefined;
    files.setUrl(document.uri, url || undefined);
    lenses.fire();
    return url ? send(document.uri) : undefined;
  });
  return files;
}
