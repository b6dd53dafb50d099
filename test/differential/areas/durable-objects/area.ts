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
    { name: "blockConcurrencyWhile returns the callback's value", path: '/bcw/b1?mode=ok', compare: { body: 'json' } },
    { name: 'a callback that throws fails the call, the caller never resumes', path: '/bcw/b1?mode=caught', compare: { body: 'json' } },
    { name: 'the object was reset: memory gone, its writes rolled back', path: '/after/b1', compare: { body: 'json' } },
    { name: 'an uncaught throw fails the RPC', path: '/bcw/b2?mode=thrown', compare: { body: 'json' } },
    { name: 'the next call reaches a fresh object', path: '/after/b2', compare: { body: 'json' } },
    { name: 'a failed blockConcurrencyWhile in the constructor fails the request', path: '/after/broken1', compare: { body: 'json' } },
    { name: 'and the next request again', path: '/after/broken1', compare: { body: 'json' } },
  ],
};
