// The extension's entry point: one composition call. Everything it builds is disposed through
// `context.subscriptions`, so `deactivate` has nothing left to do.
// First: the clock starts before the rest of the bundle evaluates.
import { moduleStart } from './vscode/moduleStart';
import type { HookbenchApi } from './vscode/api';
import { createHookbench } from './vscode/hookbench';

export function activate(context: Parameters<typeof createHookbench>[0]): HookbenchApi {
  return createHookbench(context, moduleStart);
}

export function deactivate(): void {}
