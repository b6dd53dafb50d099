/** The durable-objects area: a plain DurableObject's SQL, KV and RPC against workerd. */
import type { Area } from '../../step';

export const area: Area = {
  name: 'durable-objects',
  folder: 'durable-objects',
  steps: [
    { name: 'an RPC insert reports rowsWritten and the count', path: '/add/one?label=a', compare: { body: 'json' } },
    { name: 'a second insert', path: '/add/one?label=b', compare: { body: 'json' } },
    { name: 'transactionSync rolls back on throw', path: '/rollback/one' },
    { name: 'stub fetch reads the cursor (columnNames, raw) and ctx.id.name', path: '/read/one', compare: { body: 'json' } },
    { name: 'the KV API: put, put many, list, delete many', path: '/kv/one', compare: { body: 'json' } },
    { name: 'SQL errors and one() with no row', path: '/errors/one', compare: { body: 'json' } },
    { name: 'an RPC method that does not exist', path: '/missing/one' },
    { name: 'idFromString of a named id reaches the same instance', path: '/by-string/one', compare: { body: 'json' } },
    { name: 'idFromString refuses what is not an id', path: '/bad-id/one' },
  ],
};
