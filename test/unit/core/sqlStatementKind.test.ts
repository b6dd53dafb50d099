import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { statementKind } from '../../../src/core/sqlStatementKind';

describe('statementKind', () => {
  it('classifies statements by their first keyword', () => {
    assert.equal(statementKind('  select 1'), 'read');
    assert.equal(statementKind('PRAGMA table_info(t)'), 'read');
    assert.equal(statementKind('PRAGMA foreign_keys = ON'), 'other');
    assert.equal(statementKind('insert into t values (1)'), 'dml');
    assert.equal(statementKind('CREATE TABLE x (a)'), 'other');
    assert.equal(statementKind('WITH a AS (SELECT 1) INSERT INTO t SELECT * FROM a'), 'other');
    assert.equal(statementKind('savepoint x'), 'transaction');
  });
});
