// The extension's entry point: one composition call. Everything it builds is disposed through
// `context.subscriptions`, so `deactivate` has nothing left to do.
import { createHookbench, type HookbenchApi } from './vscode/hookbench';

export function activate(context: Parameters<typeof createHookbench>[0]): HookbenchApi {
  return createHookbench(context);
}

export function deactivate(): void {}
