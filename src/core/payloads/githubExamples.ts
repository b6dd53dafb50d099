/**
 * GitHub's example payloads (@octokit/webhooks-examples, one per event), read on the first
 * delivery built from them rather than evaluated with the bundle, where they were a large part of
 * the extension's code and of its load time (docs/performance.md, "Extension activation"). A build
 * writes them beside its bundles (dist/github-examples.json); from source or a test bundle they
 * come from the package itself. The events and their actions stay in the bundle: listing the
 * templates needs no payload.
 */
import * as fs from 'node:fs';
import Module from 'node:module';
import * as path from 'node:path';
import events from 'hookbench:github-events';

export { events as githubEvents };

type Example = Record<string, unknown>;

let loaded: Record<string, Example> | undefined;

/** The example payload of `event` (one of `githubEvents`). */
export function githubExample(event: string): Example {
  loaded ??= load();
  const example = loaded[event];
  if (!example) throw new Error(`no GitHub example payload for the event ${JSON.stringify(event)}`);
  return example;
}

function load(): Record<string, Example> {
  const built = path.join(__dirname, 'github-examples.json');
  if (fs.existsSync(built)) return JSON.parse(fs.readFileSync(built, 'utf8')) as Record<string, Example>;
  const all = Module.createRequire(__filename)('@octokit/webhooks-examples') as { name: string; examples: Example[] }[];
  return Object.fromEntries(all.map((event) => [event.name, event.examples[0] ?? {}]));
}
