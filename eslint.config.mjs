// @ts-check
// Lint rules, the import rule of each room among them (docs/architecture.md, "Rules the checks
// enforce"): two layers — src/core, what both processes use, imports neither process's code, and
// src/runtime, serve's engine, is imported only by serve, the CLI and the benches; only src/vscode
// may import 'vscode'; the contract imports nothing of the product; inside the runtime the rooms
// depend one way (worker → modules → agents → bindings → objects → storage); the webview imports
// types only. `npm run check` also fails on any import cycle (scripts/checkCycles.mjs).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const noVscode = { name: 'vscode', message: "Only src/vscode may import 'vscode' (docs/architecture.md)." };
const adapterPatterns = (/** @type {string} */ message) => [
  { group: ['**/vscode/*', '**/vscode'], message },
  { group: ['**/serve/*', '**/serve', '**/cli/*', '**/cli'], message },
  { group: ['**/webview/*', '**/webview'], message },
];
/** The serve process's engine: no room of the shared layer, the extension or the webview imports it. */
const runtimePattern = (/** @type {string} */ message) => ({ group: ['**/runtime/*', '**/runtime'], message });

/**
 * A room of the runtime that must not reach the rooms named: `rooms` are folder names under
 * src/runtime, matched as any relative path into them.
 * @param {string} room @param {string[]} rooms
 */
const runtimeRoom = (room, rooms) => ({
  files: [`src/runtime/${room}/**`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        paths: [noVscode],
        patterns: [
          ...adapterPatterns("src/runtime is serve's engine: it imports src/core, never an adapter."),
          ...rooms.map((other) => ({
            group: [`**/runtime/${other}/*`, `../${other}/*`, `../../${other}/*`, `../../${other}/**`],
            message: `src/runtime/${room} does not reach src/runtime/${other} (docs/architecture.md).`,
          })),
        ],
      },
    ],
  },
});

/** What every file of src/vscode is refused: the serve process and its engine. */
const extensionPatterns = () => [
  {
    group: ['**/serve/*', '**/serve', '**/cli/*', '**/cli'],
    message: 'The extension reaches the serve process through its admin API and the agents protocol (src/core/contract), never by import.',
  },
  runtimePattern("The extension never imports serve's engine (src/runtime): what both processes use lives in src/core (docs/architecture.md)."),
];

/**
 * src/vscode's sub-rooms in the order of docs/architecture.md's table ("The extension's rooms"):
 * a room imports its own layer and those listed before it, never one listed after. A name is a
 * folder or a file (without `.ts`) directly in src/vscode. The features (commands, panels and
 * processes) may import one another; the cycle check keeps them apart file by file.
 */
const VSCODE_LAYERS = [
  ['api', 'commands', 'deliveryDocument', 'documentUris', 'moduleStart', 'readOnlyFiles', 'secrets', 'storedFiles', 'vscodeApi'],
  ['client', 'receiver'],
  ['views'],
  ['inspector', 'documents'],
  [
    'chaos',
    'drafts',
    'expose',
    'fixtures',
    'renderPreview',
    'editResend',
    'explorerCommands',
    'receiverCommands',
    'sender',
    'walkthroughKeys',
    'webhookCommands',
  ],
  ['hookbench'],
];
const FOLDERS = new Set(['client', 'receiver', 'views', 'inspector', 'chaos', 'drafts', 'expose', 'fixtures', 'renderPreview']);

/** The lint block of one sub-room of src/vscode: the layers listed after its own are refused. */
const vscodeRoom = (/** @type {string} */ room) => {
  const layer = VSCODE_LAYERS.findIndex((names) => names.includes(room));
  const above = VSCODE_LAYERS.slice(layer + 1).flat();
  // From a folder's file a sibling room is `../name`; from a file of src/vscode it is `./name`.
  const prefix = FOLDERS.has(room) ? '../' : './';
  return {
    files: [FOLDERS.has(room) ? `src/vscode/${room}/**` : `src/vscode/${room}.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...extensionPatterns(),
            ...above.map((name) => ({
              group: [`${prefix}${name}`, `${prefix}${name}/*`],
              message: `src/vscode/${room} does not import src/vscode/${name}: the arrow points the other way (docs/architecture.md, "The extension's rooms").`,
            })),
          ],
        },
      ],
    },
  };
};

/**
 * A room of serve with one arrow of its own forbidden (`rule`, a no-restricted-imports pattern),
 * besides serve's rule that it imports nothing of the extension, the webview or the CLI.
 * @param {string} room @param {Record<string, unknown>} rule
 */
const serveRoom = (room, rule) => ({
  files: [`src/serve/${room}/**`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        paths: [noVscode],
        patterns: [
          {
            group: ['**/vscode/*', '**/vscode', '**/webview/*', '**/webview', '**/cli/*', '**/cli'],
            message: 'The serve process imports nothing of the extension, the webview or the CLI.',
          },
          rule,
        ],
      },
    ],
  },
});

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'out/', 'test/fixtures/', 'test/differential/areas/*/worker/', '**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      eqeqeq: ['error', 'always'],
      // Agents run SQL as statements: this.sql`CREATE TABLE …`.
      '@typescript-eslint/no-unused-expressions': ['error', { allowTaggedTemplates: true }],
      'no-restricted-imports': ['error', { paths: [noVscode] }],
    },
  },
  {
    files: ['esbuild.js'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['src/core/**', 'src/workers/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [noVscode],
          patterns: [
            ...adapterPatterns('src/core and src/workers run under plain Node and import no adapter.'),
            runtimePattern("src/core is the layer both processes use: it never imports serve's engine, src/runtime (docs/architecture.md)."),
          ],
        },
      ],
    },
  },
  {
    // The runtime's own top: the platform, errors, the memory budget, the browser service.
    files: ['src/runtime/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [noVscode], patterns: adapterPatterns("src/runtime is serve's engine: it imports src/core, never an adapter.") },
      ],
    },
  },
  runtimeRoom('storage', ['objects', 'agents', 'bindings', 'worker', 'modules']),
  runtimeRoom('objects', ['agents', 'bindings', 'worker', 'modules']),
  runtimeRoom('bindings', ['agents', 'worker', 'modules']),
  runtimeRoom('agents', ['worker', 'modules']),
  runtimeRoom('modules', ['worker']),
  {
    // The contract is a leaf: every room may import it, it imports nothing of the product.
    files: ['src/core/contract/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [noVscode],
          patterns: [
            {
              group: ['../*', '../**'],
              message: 'src/core/contract imports nothing of the product: it is the leaf every process and room shares (docs/architecture.md).',
            },
          ],
        },
      ],
    },
  },
  {
    // The serve process and the CLI never reach the extension or the webview.
    files: ['src/serve/**', 'src/cli/**', 'src/cli.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [noVscode],
          patterns: [
            {
              group: ['**/vscode/*', '**/vscode', '**/webview/*', '**/webview'],
              message: 'The serve process and the CLI import nothing of the extension or the webview.',
            },
          ],
        },
      ],
    },
  },
  // The render emulator is a listener of its own beside the receiver: it shares serve's guard
  // (serve/net) and implements the runtime's BrowserService, and reaches nothing else of serve.
  serveRoom('renderEmulator', {
    regex: '^\\.\\./(?!net/|\\.\\./)',
    message: 'src/serve/renderEmulator reaches serve only through serve/net, the guard every listener shares (docs/architecture.md).',
  }),
  // The receiver mounts the admin API through an interface of its own (serve/http/mountedRoutes.ts):
  // the admin API's policy is the admin API's, and the arrow points from it to the receiver.
  serveRoom('http', {
    regex: '^\\.\\./admin/',
    message: 'src/serve/http does not import the admin API: it mounts it as MountedRoutes (docs/architecture.md).',
  }),
  {
    // What every listener of serve uses: who connects, the origin and host check, node:http ↔ fetch, bounds.
    files: ['src/serve/net/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [noVscode],
          patterns: [
            {
              regex: '^\\.\\./(?!\\.\\./core/)',
              message: 'src/serve/net imports only src/core: the receiver and the render emulator both build on it (docs/architecture.md).',
            },
          ],
        },
      ],
    },
  },
  {
    // The extension talks to the serve process over HTTP and WebSockets, never by import.
    files: ['src/vscode/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: extensionPatterns(),
        },
      ],
    },
  },
  // Later blocks replace the rule for their files, so each carries the extension's patterns too.
  ...VSCODE_LAYERS.slice(0, -1).flat().map(vscodeRoom),
  {
    files: ['src/extension.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    files: ['test/integration/**'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    files: ['src/webview/**'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [noVscode],
          patterns: [{ group: ['../*', '!../shared/*'], message: 'The webview imports only shared message types.', allowTypeImports: true }],
        },
      ],
    },
  },
);
