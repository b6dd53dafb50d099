// @ts-check
// Bundles: the extension (node, vscode external), the CLI/serve process, the webview (browser),
// and with --tests the unit and integration test bundles. Type checking is `npm run check`.
const esbuild = require('esbuild');
const fs = require('node:fs');
const path = require('node:path');

const args = new Set(process.argv.slice(2));
const production = args.has('--production');
const watch = args.has('--watch');
const withTests = args.has('--tests');
const withBench = args.has('--bench');

/** ws loads these optional native accelerators with a try/require; never bundle them. */
const optionalNative = ['bufferutil', 'utf-8-validate'];

/** @returns {{ name: string, actions: string[], examples: Record<string, unknown>[] }[]} */
const githubWebhookExamples = () => /** @type {any} */ (require('@octokit/webhooks-examples'));

/**
 * `hookbench:github-events`: the events of GitHub's real webhook payloads
 * (@octokit/webhooks-examples) with the list of their actions, reduced at build time from the
 * 4 MB index. The payloads themselves (one per event, 470 KB) are `dist/github-examples.json`,
 * read on first use (src/core/payloads/githubExamples.ts): evaluated with the bundle, they were
 * half of the extension's bundle and of its load time.
 * @type {esbuild.Plugin}
 */
const githubEvents = {
  name: 'github-events',
  setup(build) {
    build.onResolve({ filter: /^hookbench:github-events$/ }, () => ({ path: 'github-events', namespace: 'hookbench' }));
    build.onLoad({ filter: /.*/, namespace: 'hookbench' }, () => {
      const reduced = Object.fromEntries(githubWebhookExamples().map((event) => [event.name, event.actions]));
      return { contents: JSON.stringify(reduced), loader: 'json' };
    });
  },
};

/**
 * Every `import * as vscode from 'vscode'` but the one in src/vscode/vscodeApi.ts resolves to
 * that module, so that the bundle copies the API's properties into a namespace once rather than
 * once per importing file (see vscodeApi.ts).
 * @type {esbuild.Plugin}
 */
const vscodeOnce = {
  name: 'vscode-once',
  setup(build) {
    // The real path: esbuild names importers by it, and the packaging stage links src/.
    const single = fs.realpathSync(path.resolve('src/vscode/vscodeApi.ts'));
    build.onResolve({ filter: /^vscode$/ }, (args) => (args.importer === single ? { path: 'vscode', external: true } : { path: single }));
  },
};

/** dist/github-examples.json: one example payload per GitHub event, keyed by event. */
function writeGithubExamples() {
  const examples = Object.fromEntries(githubWebhookExamples().map((event) => [event.name, event.examples[0]]));
  fs.writeFileSync('dist/github-examples.json', JSON.stringify(examples));
}

/** @type {esbuild.BuildOptions} */
const nodeBase = {
  plugins: [githubEvents, vscodeOnce],
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
  // esbuild finds its platform binary relative to its own package, so it is never bundled; the
  // ngrok agent library is native too (loaded only by `hookbench expose ngrok`).
  external: ['vscode', 'esbuild', '@ngrok/ngrok', ...optionalNative],
};

/** @returns {esbuild.BuildOptions[]} */
function configs() {
  /** @type {esbuild.BuildOptions[]} */
  const list = [
    // dist/extension.js (package.json's `main`) is a small launcher that runs the extension's bundle,
    // dist/extensionMain.js, from V8's code cache (src/extensionLauncher.ts), as dist/cli.js does the CLI's.
    { ...nodeBase, entryPoints: ['src/extensionLauncher.ts'], outfile: 'dist/extension.js' },
    { ...nodeBase, entryPoints: ['src/extension.ts'], outfile: 'dist/extensionMain.js' },
    // dist/cli.js is a small launcher that runs the CLI bundle, dist/cliMain.js, from V8's code
    // cache (src/cliLauncher.ts): compiling the 6 MB bundle was most of serve's start.
    {
      ...nodeBase,
      entryPoints: ['src/cliLauncher.ts'],
      outfile: 'dist/cli.js',
      banner: { js: '#!/usr/bin/env node' },
    },
    { ...nodeBase, entryPoints: ['src/cli.ts'], outfile: 'dist/cliMain.js' },
    // puppeteer-core in a bundle of its own, loaded on the first render (src/serve/renderEmulator/loadPuppeteer.ts).
    { ...nodeBase, entryPoints: ['src/serve/renderEmulator/puppeteerBundle.ts'], outfile: 'dist/puppeteer.js' },
    // undici likewise, loaded by the render client's first request (src/core/browserRendering/loadUndici.ts).
    { ...nodeBase, entryPoints: ['src/core/browserRendering/undiciBundle.ts'], outfile: 'dist/undici.js' },
    {
      // The admin API's query worker thread (src/serve/admin/adminQuery.ts starts it from dist/, the
      // test bundles under out/ too).
      ...nodeBase,
      entryPoints: ['src/serve/admin/adminQueryWorker.ts'],
      outfile: 'dist/adminQueryWorker.js',
    },
    {
      // The built-in webhook worker, pre-bundled: the serve process evaluates it like a user's
      // bundle, with `agents` and `cloudflare:workers` provided by the emulation.
      ...nodeBase,
      entryPoints: ['src/workers/default/index.ts'],
      outfile: 'dist/workers/default.js',
      external: [...(nodeBase.external ?? []), 'agents', 'cloudflare:*'],
      sourcemap: false,
    },
    {
      bundle: true,
      platform: 'browser',
      target: 'es2022',
      format: 'iife',
      sourcemap: !production,
      minify: production,
      logLevel: 'warning',
      entryPoints: ['src/webview/main.ts'],
      outfile: 'dist/webview.js',
    },
  ];
  if (withTests) {
    list.push({
      ...nodeBase,
      entryPoints: listFiles('test/unit', '.test.ts'),
      outdir: 'out/test/unit',
      outbase: 'test/unit',
      // Tests import the packages the product bundles; resolving them from node_modules keeps the
      // test bundles small and fast to build.
      packages: 'external',
    });
    list.push({
      ...nodeBase,
      entryPoints: ['test/integration/index.ts', ...listFiles('test/integration', '.test.ts')],
      outdir: 'out/test/integration',
      outbase: 'test/integration',
      packages: 'external',
    });
  }
  if (withBench) {
    list.push({
      ...nodeBase,
      entryPoints: [...listFiles('bench', '.bench.ts'), 'bench/soak.ts', 'bench/baselineServer.ts', 'bench/loadGenerator.ts'],
      outdir: 'out/bench',
      outbase: 'bench',
      packages: 'external',
    });
  }
  return list;
}

/** @param {string} dir @param {string} suffix @returns {string[]} */
function listFiles(dir, suffix) {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith(suffix))
    .map((f) => path.join(dir, f));
}

/**
 * The serve process bundles user workers with esbuild at run time (native: about 20 times faster
 * than esbuild-wasm, see docs/runtime.md), which finds its binary beside its own package. A
 * production build ships both in dist/node_modules, for the platform it is built on; build on
 * each platform (or copy its @esbuild package) for `vsce package --target`.
 */
function copyEsbuildRuntime() {
  const esbuildDir = path.dirname(require.resolve('esbuild/package.json'));
  const platformPackage = `@esbuild/${process.platform}-${process.arch}`;
  const binaryDir = path.dirname(require.resolve(`${platformPackage}/package.json`));
  const target = path.join('dist', 'node_modules');
  for (const file of ['package.json', 'LICENSE.md']) {
    fs.mkdirSync(path.join(target, 'esbuild'), { recursive: true });
    fs.copyFileSync(path.join(esbuildDir, file), path.join(target, 'esbuild', file));
  }
  fs.cpSync(path.join(esbuildDir, 'lib'), path.join(target, 'esbuild', 'lib'), { recursive: true });
  fs.cpSync(binaryDir, path.join(target, platformPackage), { recursive: true });
  copyNgrokRuntime(target);
}

/** `@ngrok/ngrok` and its native package for this platform, beside esbuild in dist/node_modules. */
function copyNgrokRuntime(/** @type {string} */ target) {
  const ngrokDir = path.dirname(require.resolve('@ngrok/ngrok/package.json'));
  fs.cpSync(ngrokDir, path.join(target, '@ngrok', 'ngrok'), { recursive: true });
  const natives = fs.readdirSync(path.join(ngrokDir, '..')).filter((name) => name.startsWith(`ngrok-${process.platform}-${process.arch}`));
  for (const name of natives) fs.cpSync(path.join(ngrokDir, '..', name), path.join(target, '@ngrok', name), { recursive: true });
}

function copyAssets() {
  // A production build starts clean, so no development source map ends up in the package.
  if (production) fs.rmSync('dist', { recursive: true, force: true });
  fs.mkdirSync('dist', { recursive: true });
  fs.copyFileSync(require.resolve('sql.js/dist/sql-wasm.wasm'), 'dist/sql-wasm.wasm');
  // sql.js's script, evaluated afresh for each separate heap (src/runtime/storage/sqljs.ts).
  fs.copyFileSync(require.resolve('sql.js/dist/sql-wasm.js'), 'dist/sql-wasm.js');
  // pdf.js renders PDF pages in the render preview; its worker is loaded by the webview.
  fs.copyFileSync(require.resolve('pdfjs-dist/build/pdf.worker.min.mjs'), 'dist/pdf.worker.min.mjs');
  writeGithubExamples();
  if (production) copyEsbuildRuntime();
}

async function main() {
  if (withTests) fs.rmSync('out/test', { recursive: true, force: true });
  copyAssets();
  if (watch) {
    for (const options of configs()) {
      const ctx = await esbuild.context(options);
      await ctx.watch();
    }
    console.log('[watch] build started');
    return;
  }
  await Promise.all(configs().map((options) => esbuild.build(options)));
  fs.chmodSync('dist/cli.js', 0o755);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
