// @ts-check
// Lint rules, the import boundaries of STYLE.md among them: only src/vscode may import 'vscode';
// core and the built-in workers import nothing from the adapters; the webview imports types only.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const noVscode = { name: 'vscode', message: "Only src/vscode may import 'vscode' (STYLE.md, Layout and boundaries)." };
const adapterPatterns = (/** @type {string} */ message) => [
  { group: ['**/vscode/*', '**/vscode'], message },
  { group: ['**/server/*', '**/server'], message },
  { group: ['**/webview/*', '**/webview'], message },
];

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
        { paths: [noVscode], patterns: adapterPatterns('src/core and src/workers run under plain Node and import no adapter.') },
      ],
    },
  },
  {
    files: ['src/vscode/**', 'src/extension.ts'],
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
