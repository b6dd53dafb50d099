// A data folder written before entity names changed gets one log line that says so, once.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { lineLogger } from '../../../src/core/log';
import { DATA_FORMAT, noteDataFormat } from '../../../src/serve/dataFormat';

function logged(dataDir: string): string[] {
  const lines: string[] = [];
  noteDataFormat(
    dataDir,
    path.join(dataDir, '_hookbench', 'format'),
    lineLogger((line) => lines.push(line), 'info'),
  );
  return lines;
}

describe('the data folder format marker', () => {
  it('explains the entity naming change once for a folder an earlier version wrote, then never again', () => {
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-format-'));
    fs.mkdirSync(path.join(data, 'nwebhook-agent', 'ncus_abc'), { recursive: true });
    const first = logged(data);
    assert.equal(first.length, 1);
    assert.match(first[0]!, /earlier Hookbench.*percent-decoded.*keep their case/);
    assert.equal(fs.readFileSync(path.join(data, '_hookbench', 'format'), 'utf8').trim(), String(DATA_FORMAT));
    assert.deepEqual(logged(data), []);
  });

  it('says nothing for a new folder', () => {
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-format-new-'));
    assert.deepEqual(logged(data), []);
    assert.deepEqual(logged(data), []);
  });
});
