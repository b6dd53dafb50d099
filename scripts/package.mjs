// @ts-check
// `npm run package`: one production build, then one `.vsix` per platform with `vsce package
// --target` into packages/hookbench-<version>-<target>.vsix, each carrying its own esbuild binary
// and ngrok library from the registry. The build is staged in out/package/stage, so the working
// tree's dist/ (a development build others may be running) is left alone. `--target linux-x64`
// (repeatable) builds only those. vsce never prompts here (stdin closed) and any warning it
// prints fails the run.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { run, step } from './lib/run.mjs';
import { root } from './lib/setup.mjs';
import { TARGETS, installedVersion, platformPackage } from './lib/targets.mjs';

export const PACKAGES_DIR = path.join(root, 'packages');
export const STAGE_DIR = path.join(root, 'out', 'package', 'stage');
const VSCE = path.join(root, 'node_modules', '@vscode', 'vsce', 'vsce');

/** What the package is made of besides dist/ (the allow list in .vscodeignore picks from these). */
const STAGED = ['package.json', 'README.md', 'CHANGELOG.md', 'LICENSE', '.vscodeignore', 'media'];

/** @param {string} target */
export function packagePath(target) {
  const { version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  return path.join(PACKAGES_DIR, `hookbench-${version}-${target}.vsix`);
}

/**
 * The production build in the stage: esbuild.js run there, its sources linked from the tree.
 * Module resolution follows the links back to the tree's node_modules.
 */
async function buildStage() {
  fs.rmSync(STAGE_DIR, { recursive: true, force: true });
  fs.mkdirSync(STAGE_DIR, { recursive: true });
  for (const link of ['src', 'tsconfig.json', 'node_modules']) fs.symlinkSync(path.join(root, link), path.join(STAGE_DIR, link));
  for (const file of STAGED) fs.cpSync(path.join(root, file), path.join(STAGE_DIR, file), { recursive: true });
  await run(process.execPath, [path.join(root, 'esbuild.js'), '--production'], { cwd: STAGE_DIR });
  // vsce reads the manifest and the files only; the links would only slow its walk.
  for (const link of ['src', 'tsconfig.json', 'node_modules']) fs.rmSync(path.join(STAGE_DIR, link));
}

/**
 * Puts `target`'s esbuild binary and ngrok library in the staged dist/node_modules in place of
 * the ones the build copied for this machine.
 * @param {import('./lib/targets.mjs').Target} target
 */
async function stageNatives(target) {
  const modules = path.join(STAGE_DIR, 'dist', 'node_modules');
  /** @type {['@esbuild' | '@ngrok', 'esbuild' | 'ngrok'][]} */
  const families = [
    ['@esbuild', 'esbuild'],
    ['@ngrok', 'ngrok'],
  ];
  for (const [scope, family] of families) {
    const wanted = target[family];
    const scopeDir = path.join(modules, scope);
    if (!fs.existsSync(scopeDir)) {
      if (family === 'esbuild') throw new Error(`the production build left no ${scopeDir}`);
      continue; // a build without ngrok ships none
    }
    // Every platform package of the family goes (the JS package, @ngrok/ngrok, stays).
    for (const name of fs.readdirSync(scopeDir)) if (`${scope}/${name}` !== `@ngrok/ngrok`) fs.rmSync(path.join(scopeDir, name), { recursive: true });
    const version = installedVersion(family === 'esbuild' ? 'esbuild' : '@ngrok/ngrok');
    const source = await platformPackage(wanted.name, version);
    fs.cpSync(source, path.join(modules, wanted.name), { recursive: true });
    fs.chmodSync(path.join(modules, wanted.name, wanted.binary), 0o755);
  }
}

/**
 * Runs vsce in the stage with stdin closed, so that it can never wait on a prompt; resolves with
 * its output, and rejects on a non-zero exit or a warning.
 * @param {string[]} args
 */
export function vsce(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [VSCE, ...args], { cwd: STAGE_DIR, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`vsce ${args.join(' ')} exited with ${code}:\n${output}`));
      else if (/\bWARNING\b/i.test(output)) reject(new Error(`vsce ${args.join(' ')} warned:\n${output}`));
      else resolve(output);
    });
  });
}

/**
 * Builds the packages for `targets` (all by default); resolves with their paths and sizes.
 * @param {string[]} [targets]
 */
export async function buildPackages(targets = TARGETS.map((t) => t.target)) {
  const unknown = targets.filter((t) => !TARGETS.some((known) => known.target === t));
  if (unknown.length) throw new Error(`unknown target ${unknown.join(', ')}; known: ${TARGETS.map((t) => t.target).join(', ')}`);
  step('Production build (staged in out/package/stage)');
  await buildStage();
  fs.mkdirSync(PACKAGES_DIR, { recursive: true });
  /** @type {{ target: string, file: string, bytes: number }[]} */
  const built = [];
  for (const target of TARGETS.filter((t) => targets.includes(t.target))) {
    await stageNatives(target);
    const file = packagePath(target.target);
    fs.rmSync(file, { force: true });
    await vsce(['package', '--target', target.target, '--no-dependencies', '--no-rewrite-relative-links', '--out', file]);
    const bytes = fs.statSync(file).size;
    built.push({ target: target.target, file, bytes });
    console.log(`  ${path.relative(root, file)}  ${(bytes / 1e6).toFixed(2)} MB`);
  }
  return built;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const targets = args.flatMap((arg, i) => (args[i - 1] === '--target' ? [arg] : []));
  buildPackages(targets.length ? targets : undefined).catch((error) => {
    console.error(`\n✘ ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
