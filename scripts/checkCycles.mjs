// @ts-check
// `npm run check` part: no import cycle among the source files, type-only imports included
// (docs/architecture.md, "Rules the checks enforce"). Reads every import and re-export of
// src/**/*.ts as text, resolves the relative ones, and prints each cycle it finds with its files.
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const src = path.join(root, 'src');

/** @param {string} dir @returns {string[]} */
function sources(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(file);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [file] : [];
  });
}

const SPECIFIER = /(?:^|[\s;])(?:import|export)\s(?:[^'";]*?\sfrom\s)?['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

/** @param {string} from @param {string} specifier */
function resolve(from, specifier) {
  const base = path.resolve(path.dirname(from), specifier);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

/** Comments are dropped first, so an import written in a comment draws no edge. */
const withoutComments = (/** @type {string} */ text) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');

const files = sources(src);
/** @type {Map<string, string[]>} */
const edges = new Map();
for (const file of files) {
  const text = withoutComments(fs.readFileSync(file, 'utf8'));
  const targets = new Set();
  for (const match of text.matchAll(SPECIFIER)) {
    const target = resolve(file, match[1] ?? match[2] ?? '');
    if (target && target !== file && target.startsWith(src)) targets.add(target);
  }
  edges.set(file, [...targets]);
}

// Tarjan's strongly connected components: every component of more than one file is a cycle.
let index = 0;
/** @type {Map<string, number>} */ const order = new Map();
/** @type {Map<string, number>} */ const low = new Map();
/** @type {string[]} */ const stack = [];
const onStack = new Set();
/** @type {string[][]} */ const cycles = [];
/** @param {string} file */
function visit(file) {
  order.set(file, index);
  low.set(file, index);
  index++;
  stack.push(file);
  onStack.add(file);
  for (const next of edges.get(file) ?? []) {
    if (!order.has(next)) {
      visit(next);
      low.set(file, Math.min(low.get(file) ?? 0, low.get(next) ?? 0));
    } else if (onStack.has(next)) low.set(file, Math.min(low.get(file) ?? 0, order.get(next) ?? 0));
  }
  if (low.get(file) === order.get(file)) {
    /** @type {string[]} */ const component = [];
    let member;
    do {
      member = /** @type {string} */ (stack.pop());
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1) cycles.push(component);
  }
}
for (const file of files) if (!order.has(file)) visit(file);

if (cycles.length > 0) {
  for (const cycle of cycles) {
    console.error(`import cycle of ${cycle.length} files:`);
    for (const file of cycle.sort()) {
      const inside = (edges.get(file) ?? []).filter((target) => cycle.includes(target)).map((target) => path.relative(root, target));
      console.error(`  ${path.relative(root, file)} → ${inside.join(', ')}`);
    }
  }
  process.exit(1);
}
console.log(`no import cycle among ${files.length} source files`);
