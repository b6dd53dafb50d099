/**
 * Run Chaos (docs/chaos.md, "In VS Code"): a fixture set, from the Explorer's folder item or
 * picked from the workspace's fixtures, sent as providers really send it by `hookbench chaos` in
 * a child process running the workspace's worker as the receiver does; progress with Cancel,
 * then a results panel per run, whose Replay this sequence runs the replay set with Run Fixtures.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ProviderName } from '../../core/contract/providers';
import type { ChaosReport } from '../../core/contract/chaos';
import type { DisposableStore } from '../../core/events';
import { collectFixturePaths, readFixtureFile } from '../../core/fixtures/fixtureFiles';
import type { Logger } from '../../core/log';
import { registerCommand } from '../commands';
import { fixtureFolder } from '../fixtures/saveFixtures';
import type { ServerController } from '../receiver/serverController';
import type { Sender } from '../sender';
import { ChaosPanel } from './chaosPanel';
import { ChaosCancelled, runChaosProcess, type ChaosRequest } from './chaosProcess';

export interface RunChaosArgs {
  /** The fixture set's folder; picked from the workspace's fixtures when absent. */
  readonly path?: string;
  /** Overrides `hookbench.chaos.seed`. */
  readonly seed?: number;
  /** Overrides `hookbench.chaos.runs`. */
  readonly runs?: number;
}

/** The workspace's fixtures folder and each folder below it that holds fixtures (dot folders are replay sets: skipped). */
function fixtureSets(directory: string): string[] {
  const sets = new Set<string>();
  try {
    for (const file of collectFixturePaths([directory])) sets.add(path.dirname(file));
  } catch {
    return [];
  }
  if (sets.size > 0) sets.add(directory);
  return [...sets].sort();
}

function settingsRequest(suite: string, args: RunChaosArgs): ChaosRequest {
  const settings = vscode.workspace.getConfiguration('hookbench.chaos');
  const seed = args.seed ?? settings.get<number | null>('seed', null) ?? Math.floor(Math.random() * 2 ** 31);
  return { suite, seed, runs: args.runs ?? settings.get<number>('runs', 5) };
}

export function registerChaosCommands(store: DisposableStore, logger: Logger, server: ServerController, sender: Sender, privateStorage: string): void {
  const panels = new Set<ChaosPanel>();
  store.add({ dispose: () => [...panels].forEach((panel) => panel.dispose()) });

  const pickSuite = async (): Promise<string | undefined> => {
    const folder = fixtureFolder(privateStorage);
    if (!folder) throw new Error('Open a folder: fixture sets are kept in the workspace (hookbench.fixtures.directory).');
    const sets = fixtureSets(folder.directory);
    if (sets.length === 0)
      throw new Error(`No fixtures in ${path.relative(folder.root, folder.directory) || '.'}: save some with Save as Fixture on a delivery.`);
    const pick = await vscode.window.showQuickPick(
      sets.map((set) => ({ label: path.relative(folder.root, set) || '.', description: `${collectFixturePaths([set]).length} fixtures`, set })),
      { title: 'Run Chaos on a fixture set' },
    );
    return pick?.set;
  };

  /** Every provider's secret, asked for before the run as Run Fixtures asks: the run reads them from the environment. */
  const haveSecrets = async (suite: string): Promise<boolean> => {
    let providers: Set<ProviderName>;
    try {
      providers = new Set(collectFixturePaths([suite]).map((file) => readFixtureFile(file).fixture.provider));
    } catch (error) {
      throw new Error(`The fixture set cannot run: ${(error as Error).message}`);
    }
    if (providers.size === 0) throw new Error(`No fixtures in ${suite}.`);
    for (const provider of providers) if (!(await sender.secretFor(provider))) return false;
    return true;
  };

  const replay = async (failure: { replay?: string }) =>
    vscode.commands.executeCommand<{ passed: number; failed: number } | undefined>('hookbench.fixtures.run', { path: failure.replay });

  // Answers the report it shows (the contract's shape), as Open State Timeline answers its steps.
  registerCommand(store, logger, 'hookbench.chaos.run', async (raw?: unknown): Promise<ChaosReport | undefined> => {
    const args = (raw instanceof vscode.Uri ? { path: raw.fsPath } : (raw ?? {})) as RunChaosArgs;
    const suite = args.path ? path.resolve(args.path) : await pickSuite();
    if (!suite) return undefined;
    if (!fs.statSync(suite, { throwIfNoEntry: false })?.isDirectory()) throw new Error(`${suite} is not a folder of fixtures.`);
    if (!(await haveSecrets(suite))) return undefined;
    const request = settingsRequest(suite, args);
    const launch = await server.workerLaunch();
    logger.info(
      `${suite}, seed ${request.seed}, ${request.runs} runs of each perturbation${launch.args.length ? ` (${launch.args.join(' ')})` : ' (the built-in worker)'}`,
    );
    const report = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Hookbench chaos (seed ${request.seed})`, cancellable: true },
      (progress, token) => {
        const cancelled = new Promise<void>((resolve) => token.onCancellationRequested(() => resolve()));
        return runChaosProcess(launch, request, {
          cancelled,
          onProgress: (line) => {
            logger.info(line);
            progress.report({ message: line.replace(/\s+/g, ' ').slice(0, 120) });
          },
        }).catch((error: unknown) => {
          if (error instanceof ChaosCancelled) return undefined;
          throw error;
        });
      },
    );
    if (!report) {
      logger.info('the chaos run was cancelled');
      return undefined;
    }
    const panel = new ChaosPanel(report, replay, () => panels.delete(panel));
    panels.add(panel);
    return report;
  });
}
