// @ts-check
// The platforms Hookbench ships a package for, and the native npm packages each one carries: the
// serve process bundles user workers with esbuild (a Go binary per platform), and `hookbench
// expose ngrok` loads ngrok's agent library (a Node-API module per platform). Each target's
// packages come from the registry, fetched once into the tools folder.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { withLock } from './lock.mjs';
import { run } from './run.mjs';
import { root, toolsDir } from './setup.mjs';

/**
 * `vsce package --target` names, with the platform-specific packages each needs and what their
 * binaries are: `format` and `cpu` are what the file header must say (ELF e_machine, Mach-O
 * cputype, PE Machine); `libc` tells musl from glibc builds of the same CPU.
 * @typedef {{ name: string, binary: string, format: 'elf' | 'macho' | 'pe', cpu: 'x64' | 'arm64', libc?: 'glibc' | 'musl' }} NativePackage
 * @typedef {{ target: string, esbuild: NativePackage, ngrok: NativePackage }} Target
 * @type {Target[]}
 */
export const TARGETS = [
  target('linux-x64', 'linux-x64', 'elf', 'x64', 'linux-x64-gnu', 'glibc'),
  target('linux-arm64', 'linux-arm64', 'elf', 'arm64', 'linux-arm64-gnu', 'glibc'),
  target('darwin-x64', 'darwin-x64', 'macho', 'x64', 'darwin-x64'),
  target('darwin-arm64', 'darwin-arm64', 'macho', 'arm64', 'darwin-arm64'),
  target('win32-x64', 'win32-x64', 'pe', 'x64', 'win32-x64-msvc'),
  target('win32-arm64', 'win32-arm64', 'pe', 'arm64', 'win32-arm64-msvc'),
  // esbuild's Linux binaries are static, so Alpine takes the linux-x64 one; ngrok has a musl build.
  target('alpine-x64', 'linux-x64', 'elf', 'x64', 'linux-x64-musl', 'musl'),
];

/**
 * @param {string} name @param {string} esbuildPlatform @param {'elf' | 'macho' | 'pe'} format
 * @param {'x64' | 'arm64'} cpu @param {string} ngrokPlatform @param {'glibc' | 'musl'} [libc]
 * @returns {Target}
 */
function target(name, esbuildPlatform, format, cpu, ngrokPlatform, libc) {
  const esbuildBinary = format === 'pe' ? 'esbuild.exe' : 'bin/esbuild';
  return {
    target: name,
    esbuild: { name: `@esbuild/${esbuildPlatform}`, binary: esbuildBinary, format, cpu },
    ngrok: { name: `@ngrok/ngrok-${ngrokPlatform}`, binary: `ngrok.${ngrokPlatform}.node`, format, cpu, ...(libc ? { libc } : {}) },
  };
}

/** The version of a package the project installed (the platform packages must match it exactly). @param {string} name */
export function installedVersion(name) {
  return JSON.parse(fs.readFileSync(path.join(root, 'node_modules', name, 'package.json'), 'utf8')).version;
}

/**
 * A platform package's folder, fetched from the registry into the tools folder the first time
 * (`npm pack`, which downloads whatever the package's os/cpu fields say, and unpacked), then
 * read from there: offline once fetched.
 * @param {string} name @param {string} version @returns {Promise<string>}
 */
export async function platformPackage(name, version) {
  const dir = path.join(toolsDir(), 'platform-packages', `${name.replace('/', '+')}-${version}`);
  const ready = path.join(dir, '.hookbench-ready');
  if (fs.existsSync(ready)) return path.join(dir, 'package');
  await withLock(`${dir}.lock`, `fetching ${name}@${version}`, async () => {
    if (fs.existsSync(ready)) return;
    const aside = `${dir}.tmp-${process.pid}`;
    fs.rmSync(aside, { recursive: true, force: true });
    fs.mkdirSync(aside, { recursive: true });
    await run('npm', ['pack', `${name}@${version}`, '--pack-destination', aside, '--silent'], { cwd: aside, stdio: ['ignore', 'ignore', 'inherit'] });
    const tarball = fs.readdirSync(aside).find((file) => file.endsWith('.tgz'));
    if (!tarball) throw new Error(`npm pack ${name}@${version} left no tarball`);
    await run('tar', ['-xzf', tarball], { cwd: aside });
    fs.rmSync(path.join(aside, tarball));
    fs.writeFileSync(path.join(aside, '.hookbench-ready'), new Date().toISOString());
    fs.rmSync(dir, { recursive: true, force: true });
    fs.renameSync(aside, dir);
  });
  return path.join(dir, 'package');
}
