// GitHub's example payloads are read on first use: from a build's dist/github-examples.json, else
// from the package. Both give every listed event its example, the same one.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { githubEvents, githubExample } from '../../../../src/core/payloads/githubExamples';

describe('GitHub example payloads', () => {
  it('give every listed event its example', () => {
    const events = Object.keys(githubEvents);
    assert.ok(events.length >= 50);
    for (const event of events) assert.equal(typeof githubExample(event), 'object', event);
    assert.ok(githubEvents['pull_request']?.includes('closed'));
    assert.equal((githubExample('push') as { ref?: string }).ref?.startsWith('refs/'), true);
  });

  it('are the same in the build as in the package', () => {
    const built = path.resolve('dist', 'github-examples.json');
    assert.ok(fs.existsSync(built), 'node esbuild.js wrote dist/github-examples.json');
    const file = JSON.parse(fs.readFileSync(built, 'utf8')) as Record<string, unknown>;
    assert.deepEqual(Object.keys(file).sort(), Object.keys(githubEvents).sort());
    for (const event of Object.keys(githubEvents)) assert.deepEqual(file[event], githubExample(event), event);
  });

  it('name the event they have no example for', () => {
    assert.throws(() => githubExample('no_such_event'), /no GitHub example payload for the event "no_such_event"/);
  });
});
