// The per-platform packages `npm run package` builds (scripts/package.mjs): what each carries,
// checked file by file against an allow list, its size against the budget, and its native
// binaries by their headers; the linux-x64 esbuild binary is run.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { binaryKind } from './binaryHeader';
import { readZip, type ZipEntry } from './zip';

interface NativePackage {
  name: string;
  binary: string;
  format: 'elf' | 'macho' | 'pe';
  cpu: 'x64' | 'arm64';
  libc?: 'glibc' | 'musl';
}
interface Target {
  target: string;
  esbuild: NativePackage;
  ngrok: NativePackage;
}

/**
 * Bytes per package. Today 10.4–11.5 MB, compressed: esbuild's binary 4.3–4.8 MB, ngrok's
 * library 3.6–4.2 MB, and Hookbench's own files (bundles, sql.js, pdf.js's worker, media, README
 * screenshots) 2.5 MB, which has a budget of its own so that growth there shows whatever the
 * platform binaries weigh.
 */
const SIZE_BUDGET = 11.8e6;
const OWN_FILES_BUDGET = 2.7e6;

/**
 * Everything a package may hold, as `vsce ls` names it (the .vsix's `extension/` folder). No
 * sources, tests, source maps, data folders or secrets files can match.
 */
const ALLOWED = [
  /^(package\.json|README\.md|CHANGELOG\.md|LICENSE)$/,
  /^dist\/(extension|extensionMain|cli|cliMain|puppeteer|undici|adminQueryWorker|webview|sql-wasm)\.js$/,
  /^dist\/(sql-wasm\.wasm|pdf\.worker\.min\.mjs|github-examples\.json)$/,
  /^dist\/workers\/default\.js$/,
  /^dist\/node_modules\/esbuild\/(package\.json|LICENSE\.md|lib\/main\.(js|d\.ts))$/,
  /^dist\/node_modules\/@esbuild\/[a-z0-9]+-[a-z0-9]+\/(package\.json|README\.md|bin\/esbuild|esbuild\.exe)$/,
  /^dist\/node_modules\/@ngrok\/ngrok\/(package\.json|index\.js|index\.d\.ts|README\.md|LICENSE-MIT|LICENSE-APACHE|CONTRIBUTING\.md|CODE_OF_CONDUCT\.md|CHANGELOG\.md)$/,
  /^dist\/node_modules\/@ngrok\/ngrok-[a-z0-9-]+\/(package\.json|README\.md|ngrok\.[a-z0-9-]+\.node)$/,
  /^media\/(hookbench\.(svg|png)|screenshots\/[a-z0-9-]+\.png|walkthrough\/[a-z-]+\.md|(http|sql)\/[A-Za-z.-]+\.json)$/,
];

/** What every package must hold for the extension to run. */
const REQUIRED = [
  'package.json',
  'README.md',
  'CHANGELOG.md',
  'LICENSE',
  'dist/extension.js',
  'dist/extensionMain.js',
  'dist/cli.js',
  'dist/adminQueryWorker.js',
  'dist/webview.js',
  'dist/cliMain.js',
  'dist/puppeteer.js',
  'dist/undici.js',
  'dist/github-examples.json',
  'dist/sql-wasm.js',
  'dist/sql-wasm.wasm',
  'dist/pdf.worker.min.mjs',
  'dist/workers/default.js',
  'dist/node_modules/esbuild/package.json',
  'dist/node_modules/esbuild/lib/main.js',
  'media/hookbench.png',
];

const root = process.cwd();
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string; icon: string };
const { TARGETS, installedVersion } = (await import(path.resolve('scripts/lib/targets.mjs'))) as {
  TARGETS: Target[];
  installedVersion: (name: string) => string;
};

/** A .vsix entry by the name `vsce ls` gives it. */
function packagedName(entry: string): string | undefined {
  if (!entry.startsWith('extension/')) return undefined;
  const name = entry.slice('extension/'.length);
  return ({ 'readme.md': 'README.md', 'changelog.md': 'CHANGELOG.md', 'LICENSE.txt': 'LICENSE' } as Record<string, string>)[name] ?? name;
}

function open(target: string): Map<string, ZipEntry> {
  const file = path.join(root, 'packages', `hookbench-${manifest.version}-${target}.vsix`);
  assert.ok(fs.existsSync(file), `${file} was built (npm run package)`);
  const entries = new Map<string, ZipEntry>();
  for (const entry of readZip(file)) {
    const name = packagedName(entry.name);
    if (name !== undefined) entries.set(name, entry);
    else assert.ok(['extension.vsixmanifest', '[Content_Types].xml'].includes(entry.name), `unexpected ${entry.name} outside extension/`);
  }
  return entries;
}

function notAllowed(names: Iterable<string>): string[] {
  return [...names].filter((name) => !ALLOWED.some((pattern) => pattern.test(name)));
}

for (const target of TARGETS) {
  describe(`the ${target.target} package`, () => {
    const file = path.join(root, 'packages', `hookbench-${manifest.version}-${target.target}.vsix`);

    it('holds only what the allow list names, and everything the extension needs', () => {
      const entries = open(target.target);
      assert.deepEqual(notAllowed(entries.keys()), []);
      assert.deepEqual(
        REQUIRED.filter((name) => !entries.has(name)),
        [],
      );
      assert.ok(entries.has(manifest.icon), `the icon ${manifest.icon}`);
      // Every file the manifest points at (grammars, language configurations, icons) ships.
      const referenced = [...JSON.stringify(manifest).matchAll(/"\.\/((?:media|dist)\/[^"]+)"/g)].map((m) => m[1]!);
      assert.ok(referenced.length > 0, 'the manifest names files of its own');
      assert.deepEqual(
        referenced.filter((name) => !entries.has(name)),
        [],
      );
      // The README's own images ship with it (the docs' screenshots stay in the repository).
      const readmeImages = [...fs.readFileSync(path.join(root, 'README.md'), 'utf8').matchAll(/\]\((media\/[^)\s]+\.png)\)/g)].map((m) => m[1]!);
      assert.ok(readmeImages.length > 0, 'the README shows screenshots');
      assert.deepEqual(
        readmeImages.filter((image) => !entries.has(image)),
        [],
      );
    });

    it(`stays within ${SIZE_BUDGET / 1e6} MB, Hookbench's own files within ${OWN_FILES_BUDGET / 1e6} MB`, () => {
      const bytes = fs.statSync(file).size;
      assert.ok(bytes <= SIZE_BUDGET, `${(bytes / 1e6).toFixed(2)} MB is over the budget`);
      const own = [...open(target.target)].filter(([name]) => !/^dist\/node_modules\/@(esbuild\/|ngrok\/ngrok-)/.test(name));
      const ownBytes = own.reduce((sum, [, entry]) => sum + entry.compressedSize, 0);
      assert.ok(ownBytes <= OWN_FILES_BUDGET, `Hookbench's own files take ${(ownBytes / 1e6).toFixed(2)} MB, over their budget`);
    });

    it(`is declared for ${target.target} and for the workspace side`, () => {
      const zip = readZip(file);
      const vsixManifest = zip
        .find((e) => e.name === 'extension.vsixmanifest')!
        .read()
        .toString('utf8');
      assert.match(vsixManifest, new RegExp(`TargetPlatform="${target.target}"`));
      const packaged = JSON.parse(
        zip
          .find((e) => e.name === 'extension/package.json')!
          .read()
          .toString('utf8'),
      ) as { extensionKind: string[] };
      assert.deepEqual(packaged.extensionKind, ['workspace']);
    });

    for (const native of [target.esbuild, target.ngrok]) {
      it(`carries ${native.name}: ${native.format} for ${native.cpu}${native.libc ? ` (${native.libc})` : ''}, and no other platform's`, () => {
        const entries = open(target.target);
        const family = native.name.startsWith('@esbuild/') ? 'dist/node_modules/@esbuild/' : 'dist/node_modules/@ngrok/ngrok-';
        const platforms = new Set([...entries.keys()].filter((name) => name.startsWith(family)).map((name) => name.split('/')[3]));
        assert.deepEqual([...platforms], [native.name.split('/')[1]]);
        const binary = entries.get(`dist/node_modules/${native.name}/${native.binary}`);
        assert.ok(binary, `${native.name}/${native.binary}`);
        const kind = binaryKind(binary.read());
        assert.deepEqual({ format: kind.format, cpu: kind.cpu }, { format: native.format, cpu: native.cpu });
        if (native.libc) assert.equal(kind.libc, native.libc);
        if (native.format !== 'pe') assert.equal(binary.mode & 0o111, 0o111, 'executable');
      });
    }
  });
}

describe('the linux-x64 package', () => {
  it(
    'carries an esbuild binary that runs here and is the version of the esbuild JS beside it',
    { skip: process.platform !== 'linux' || process.arch !== 'x64' },
    () => {
      const entries = open('linux-x64');
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hookbench-vsix-'));
      try {
        const binary = path.join(dir, 'esbuild');
        fs.writeFileSync(binary, entries.get('dist/node_modules/@esbuild/linux-x64/bin/esbuild')!.read(), { mode: 0o755 });
        const run = spawnSync(binary, ['--version'], { encoding: 'utf8' });
        assert.equal(run.status, 0, run.stderr);
        const js = JSON.parse(entries.get('dist/node_modules/esbuild/package.json')!.read().toString('utf8')) as { version: string };
        assert.deepEqual([run.stdout.trim(), js.version], [installedVersion('esbuild'), installedVersion('esbuild')]);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});

describe('vsce ls', () => {
  it('lists only what the allow list names, for the staged build', { skip: !fs.existsSync(path.join(root, 'out', 'package', 'stage', 'package.json')) }, () => {
    const vsce = path.join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
    const ls = spawnSync(process.execPath, [vsce, 'ls', '--no-dependencies'], {
      cwd: path.join(root, 'out', 'package', 'stage'),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    assert.equal(ls.status, 0, ls.stderr);
    const listed = ls.stdout.split('\n').filter((line) => line.trim() !== '');
    assert.ok(listed.includes('dist/adminQueryWorker.js'));
    assert.deepEqual(notAllowed(listed), []);
  });
});
