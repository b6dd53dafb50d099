import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { decodeName, encodeName } from '../../../../src/runtime/storage/names';

const HOSTILE = [
  '../../x',
  '..',
  '.',
  '',
  'a/b',
  'a\\b',
  '%2F',
  '%2f',
  'acme%2Fwidgets',
  'acme/widgets',
  'Acme',
  'acme',
  'x'.repeat(300),
  'ü'.repeat(200),
  '🚀 launch',
  'nul\u0000byte',
  'CON',
  'aux.txt',
  ' spaced ',
  'a_b',
  'a_5fb',
  '-',
  'n',
  'x'.repeat(300) + 'y',
];

describe('encodeName', () => {
  it('gives distinct file names for distinct instance names, case included', () => {
    const encoded = HOSTILE.map(encodeName);
    assert.equal(new Set(encoded).size, HOSTILE.length);
    assert.equal(new Set(encoded.map((e) => e.toLowerCase())).size, HOSTILE.length);
  });

  it('yields names that are safe as one path segment and short enough for any file system', () => {
    for (const name of HOSTILE) {
      const encoded = encodeName(name);
      assert.match(encoded, /^[a-z0-9_~-]+$/);
      assert.ok(encoded !== '.' && encoded !== '..');
      assert.ok(Buffer.byteLength(encoded) <= 160, `${encoded.length} bytes`);
      assert.equal(path.basename(encoded), encoded);
    }
  });

  it('creates real directories inside the data folder and nowhere else', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-names-'));
    for (const name of HOSTILE) fs.mkdirSync(path.join(root, encodeName(name)));
    assert.equal(fs.readdirSync(root).length, HOSTILE.length);
    assert.deepEqual(
      fs.readdirSync(path.dirname(root)).filter((f) => f === 'x'),
      [],
    );
    fs.rmSync(root, { recursive: true });
  });

  it('decodes back every name short enough to be stored plainly', () => {
    for (const name of HOSTILE) {
      const encoded = encodeName(name);
      if (encoded.startsWith('n')) assert.equal(decodeName(encoded), name);
      else assert.equal(decodeName(encoded), undefined);
    }
  });
});
