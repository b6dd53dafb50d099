// The SQL console's exports: CSV quoting by RFC 4180 and JSON rows that keep every value.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { csvField, toCsv, toJson, uniqueKeys } from '../../../../src/core/inspector/resultsExport';

describe('CSV export', () => {
  it('leaves plain fields bare and ends every line with CRLF', () => {
    assert.equal(
      toCsv({
        columns: ['id', 'n'],
        rows: [
          ['a', 1],
          ['b', 2.5],
        ],
      }),
      'id,n\r\na,1\r\nb,2.5\r\n',
    );
  });

  it('quotes fields with commas, quotes, line breaks or edge spaces, doubling the quotes', () => {
    assert.equal(csvField('a,b'), '"a,b"');
    assert.equal(csvField('say "hi"'), '"say ""hi"""');
    assert.equal(csvField('two\nlines'), '"two\nlines"');
    assert.equal(csvField('cr\rhere'), '"cr\rhere"');
    assert.equal(csvField(' padded'), '" padded"');
    assert.equal(csvField('plain'), 'plain');
  });

  it('writes NULL as an empty field, blobs as their base64, and formulas as they are', () => {
    assert.equal(toCsv({ columns: ['a', 'b', 'c'], rows: [[null, { base64: 'AAE=' }, '=1+1']] }), 'a,b,c\r\n,AAE=,=1+1\r\n');
  });

  it('quotes column names like any field', () => {
    assert.equal(toCsv({ columns: ['a,b', '"q"'], rows: [] }), '"a,b","""q"""\r\n');
  });
});

describe('JSON export', () => {
  it('writes one object per row, keyed by column, values typed as SQLite answered them', () => {
    const rows = JSON.parse(toJson({ columns: ['id', 'n', 'x'], rows: [['a', 1, null]] })) as unknown;
    assert.deepEqual(rows, [{ id: 'a', n: 1, x: null }]);
  });

  it('keeps both values of a repeated column name', () => {
    assert.deepEqual(uniqueKeys(['a', 'a', 'b', 'a']), ['a', 'a:2', 'b', 'a:3']);
    assert.deepEqual(JSON.parse(toJson({ columns: ['a', 'a'], rows: [[1, 2]] })), [{ a: 1, 'a:2': 2 }]);
  });

  it('keeps a column named __proto__ as data, not as the prototype', () => {
    const text = toJson({ columns: ['__proto__', 'constructor'], rows: [['x', 'y']] });
    assert.match(text, /"__proto__": "x"/);
    assert.match(text, /"constructor": "y"/);
  });

  it('escapes quotes, backslashes and control characters as JSON requires', () => {
    const value = 'q"\\\n\u0001</script>';
    assert.deepEqual(JSON.parse(toJson({ columns: ['v'], rows: [[value]] })), [{ v: value }]);
  });
});
