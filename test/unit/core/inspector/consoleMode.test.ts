// The SQL console's read-write gate: read-only until confirmed, writes routed through the instance.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConsoleModes, explainRefusal, routeFor } from '../../../../src/core/inspector/consoleMode';
import { browseSql, quoteIdentifier } from '../../../../src/core/contract/tableSchema';

describe('the read-write gate', () => {
  it('starts every console read-only, sending everything to the read-only query', () => {
    const modes = new ConsoleModes();
    assert.equal(modes.mode('WEBHOOK_AGENT/acme'), 'readOnly');
    assert.equal(modes.route('WEBHOOK_AGENT/acme', 'DELETE FROM events'), 'query');
  });

  it('stays read-only when the user did not confirm the switch', () => {
    const modes = new ConsoleModes();
    assert.equal(modes.allowWrites('k', false), 'readOnly');
    assert.equal(modes.route('k', 'UPDATE events SET type = 1'), 'query');
  });

  it('once confirmed, sends writes to the instance and reads still to the read-only copy', () => {
    const modes = new ConsoleModes();
    assert.equal(modes.allowWrites('k', true), 'readWrite');
    for (const sql of [
      'UPDATE events SET type = 1',
      'INSERT INTO t VALUES (1)',
      'CREATE TABLE t (a)',
      'WITH x AS (SELECT 1) DELETE FROM t',
      'PRAGMA user_version = 3',
    ])
      assert.equal(modes.route('k', sql), 'execute', sql);
    for (const sql of ['SELECT * FROM events', '  select 1', 'PRAGMA table_info(events)', 'EXPLAIN SELECT 1'])
      assert.equal(modes.route('k', sql), 'query', sql);
  });

  it('is per console, and switching back makes it read-only again', () => {
    const modes = new ConsoleModes();
    modes.allowWrites('a', true);
    assert.equal(modes.mode('b'), 'readOnly');
    modes.readOnly('a');
    assert.equal(modes.route('a', 'DELETE FROM t'), 'query');
  });

  it('tells a read-only console how to write, and leaves other errors as SQLite said them', () => {
    assert.match(explainRefusal('read-only: DELETE is refused; only SELECT …', 'readOnly'), /switch it to read-write/);
    assert.equal(explainRefusal('SQL error: no such table: nope', 'readOnly'), 'SQL error: no such table: nope');
    assert.equal(routeFor('readWrite', 'DROP TABLE t'), 'execute');
  });
});

describe('browsing a table', () => {
  it('quotes the name, doubling quotes, so hostile names stay names', () => {
    assert.equal(browseSql('events'), 'SELECT * FROM "events" LIMIT 100');
    assert.equal(quoteIdentifier('a"; DROP TABLE events; --'), '"a""; DROP TABLE events; --"');
  });
});
