// The screenshots of the README and docs/*.md, staged in a real workbench by
// scripts/screenshots.mjs: Hookbench as installed from this build's .vsix, fed signed webhooks,
// its views, inspector, fixtures and render preview opened; each scene asks the launcher to
// capture the window (stage.ts `capture`) into HOOKBENCH_SCREENSHOTS_DIR. The scenes run in order
// on one receiver: the inspector and fixtures scenes use the README scene's deliveries, and the
// volume scene's 300 entities come last.
import * as vscode from 'vscode';
import type { HookbenchApi } from '../helpers';
import { explorerScene, volumeScene } from './explorer';
import { fixturesScene } from './fixtures';
import { consoleScene, timelineScene } from './inspector';
import { renderScene } from './render';

export async function run(): Promise<void> {
  const api = await vscode.extensions.getExtension<HookbenchApi>('hookbench.hookbench')!.activate();
  await explorerScene(api);
  await consoleScene();
  await timelineScene();
  await fixturesScene();
  await volumeScene(api);
  await renderScene();
}
