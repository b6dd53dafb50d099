// docs/admin-api.md and the contract module say the same thing: every route and every live message
// the contract declares is documented, and the doc names none the contract does not declare.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ADMIN_ROUTES } from '../../../../src/core/contract/admin';
import { LIVE_MESSAGE_TYPES } from '../../../../src/core/contract/live';
import { notesOf, noteDelivery } from '../../../../src/core/contract/notes';

function adminDoc(): string {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('no package.json above the tests');
    dir = parent;
  }
  return fs.readFileSync(path.join(dir, 'docs', 'admin-api.md'), 'utf8');
}

const sorted = (values: Iterable<string>) => [...new Set(values)].sort();

describe('docs/admin-api.md against src/core/contract', () => {
  const doc = adminDoc();

  it('documents exactly the routes the contract declares', () => {
    // A route is written `METHOD /__hookbench/…` in code spans; a query string is not part of it.
    const documented = [...doc.matchAll(/`(GET|POST|DELETE) (\/__hookbench\/[^`?\s]*)(?:\?[^`]*)?`/g)].map(([, method, route]) => `${method} ${route}`);
    assert.deepEqual(sorted(documented), sorted(ADMIN_ROUTES));
  });

  it('documents exactly the live messages the contract declares', () => {
    const documented = [...doc.matchAll(/\{"type": "([a-z]+)"/g)].map(([, type]) => type!);
    assert.deepEqual(sorted(documented), sorted(LIVE_MESSAGE_TYPES));
  });
});

describe('delivery notes', () => {
  it('travel on the response object the worker returns', () => {
    const response = noteDelivery(new Response('OK'), { provider: 'github', entity: 'acme/widgets', verification: 'valid', event: 'd-1', stored: false });
    assert.deepEqual(notesOf(response), { provider: 'github', entity: 'acme/widgets', verification: 'valid', event: 'd-1', stored: false });
  });

  it('are absent from a response no one noted and never on the wire', () => {
    const response = new Response('OK', { headers: { 'x-hookbench-provider': 'github' } });
    assert.deepEqual(notesOf(response), {});
    assert.equal(noteDelivery(new Response('OK'), { provider: 'github' }).headers.has('x-hookbench-provider'), false);
  });

  it('keep only well-formed fields, cut to a bounded length', () => {
    const response = noteDelivery(new Response('OK'), { provider: 42, entity: 'x'.repeat(5000), stored: 'false' } as never);
    assert.deepEqual(notesOf(response), { entity: 'x'.repeat(2048) });
  });
});
