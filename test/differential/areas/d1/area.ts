/** The D1 area: statements, results, meta, batches, exec and the error texts. */
import type { Area, HttpStep } from '../../step';

/** Timing and size fields differ by nature (and by the file format underneath): dropped. */
function stripVolatile(body: unknown): unknown {
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (value && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        // rows_read/rows_written are SQLite's internal counters (index pages, scans), which sql.js does not expose.
        if (
          [
            'rows_read',
            'rows_written',
            'duration',
            'size_after',
            'timings',
            'served_by',
            'served_by_region',
            'served_by_colo',
            'served_by_primary',
            'total_attempts',
          ].includes(k)
        )
          continue;
        out[k] = walk(v);
      }
      return out;
    }
    return value;
  };
  return walk(body);
}

const call = (name: string, body: Record<string, unknown>): HttpStep => ({
  name,
  method: 'POST',
  path: '/d1',
  body: JSON.stringify(body),
  compare: { body: 'json', normalize: stripVolatile },
});

export const area: Area = {
  name: 'd1',
  folder: 'd1',
  steps: [
    call('create a table', {
      kind: 'run',
      sql: 'CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL, qty INTEGER, flag INTEGER, data BLOB)',
    }),
    call('insert with bound values', { kind: 'run', sql: 'INSERT INTO items (name, qty, flag) VALUES (?1, ?2, ?3)', params: ['apple', 3, true] }),
    call('insert a row', { kind: 'run', sql: 'INSERT INTO items (name, qty) VALUES (?, ?)', params: ['blob', 1] }),
    call('bind an ArrayBuffer as a blob', { kind: 'run', sql: "UPDATE items SET data = ? WHERE name = 'blob'", blob: true }),
    call('all rows', { kind: 'all', sql: 'SELECT name, qty, flag, data FROM items ORDER BY id' }),
    call('first row', { kind: 'first', sql: 'SELECT * FROM items ORDER BY id' }),
    call('first column', { kind: 'first', sql: 'SELECT name FROM items ORDER BY id', column: 'name' }),
    call('first of nothing', { kind: 'first', sql: 'SELECT * FROM items WHERE id = 99' }),
    call('a missing column', { kind: 'first', sql: 'SELECT name FROM items', column: 'nope' }),
    call('raw rows', { kind: 'raw', sql: 'SELECT name, qty FROM items ORDER BY id' }),
    call('raw with column names', { kind: 'raw', sql: 'SELECT name, qty FROM items ORDER BY id', columnNames: true }),
    call('a keyword as a table name', { kind: 'all', sql: 'SELECT * FROM nothing' }),
    call('no such table', { kind: 'all', sql: 'SELECT * FROM missing_table' }),
    call('a syntax error', { kind: 'all', sql: 'SELEC 1' }),
    call('a unique violation', { kind: 'run', sql: "INSERT INTO items (name) VALUES ('apple')" }),
    call('a NOT NULL violation', { kind: 'run', sql: 'INSERT INTO items (qty) VALUES (1)' }),
    call('undefined is not bindable', { kind: 'all', sql: 'SELECT ?', undefinedParam: true }),
    call('too few parameters', { kind: 'all', sql: 'SELECT ?, ?', params: [1] }),
    call('a batch applies whole', {
      kind: 'batch',
      batch: [{ sql: "INSERT INTO items (name, qty) VALUES ('pear', 2)" }, { sql: 'SELECT count(*) AS n FROM items' }],
    }),
    call('a failing batch applies nothing', {
      kind: 'batch',
      batch: [{ sql: "INSERT INTO items (name) VALUES ('plum')" }, { sql: "INSERT INTO items (name) VALUES ('pear')" }],
    }),
    call('no plum after the failed batch', { kind: 'first', sql: "SELECT count(*) AS n FROM items WHERE name = 'plum'" }),
    call('exec several lines', { kind: 'exec', sql: "CREATE TABLE log (msg TEXT);\nINSERT INTO log VALUES ('a');\nINSERT INTO log VALUES ('b')" }),
    call('exec with an error names the line', { kind: 'exec', sql: "INSERT INTO log VALUES ('c')\nINSERT INTO missing VALUES (1)" }),
    call('what exec left', { kind: 'raw', sql: 'SELECT msg FROM log ORDER BY rowid' }),
    call('update changes', { kind: 'run', sql: 'UPDATE items SET qty = qty + 1' }),
    call('delete returning', { kind: 'all', sql: "DELETE FROM items WHERE name = 'pear' RETURNING name" }),
  ],
};
