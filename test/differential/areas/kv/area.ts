/** The KV area: values, types, metadata, expirations and their limits, listing with cursors. */
import type { Area, HttpStep } from '../../step';

const op = (name: string, kvOp: string, ...args: unknown[]): HttpStep => ({
  name,
  method: 'POST',
  path: '/kv',
  body: JSON.stringify({ op: kvOp, args }),
  compare: { body: 'json' },
});

/** Cursors are opaque and each runtime's own: compare only that one is there. */
const noCursor = (body: unknown) => {
  const b = body as { result?: { cursor?: string } };
  if (b.result?.cursor !== undefined) b.result.cursor = 'present';
  return b;
};

export const area: Area = {
  name: 'kv',
  folder: 'kv',
  steps: [
    op('a missing key is null', 'get', 'missing'),
    op('put a text value', 'put', 'greeting', 'hello'),
    op('get it as text', 'get', 'greeting'),
    op('get it as arrayBuffer', 'get', 'greeting', 'arrayBuffer'),
    op('get it as stream', 'get', 'greeting', { type: 'stream' }),
    op('put JSON with metadata', 'put', 'doc', '{"a":[1,2]}', { metadata: { by: 'test', n: 1 } }),
    op('get it as json', 'get', 'doc', 'json'),
    op('getWithMetadata', 'getWithMetadata', 'doc', 'json'),
    op('getWithMetadata of a missing key', 'getWithMetadata', 'nope'),
    op('an expirationTtl under 60 s is refused', 'put', 'short', 'x', { expirationTtl: 30 }),
    op('an expiration in the past is refused', 'put', 'short', 'x', { expiration: 1000 }),
    op('an empty key is refused', 'get', ''),
    op('a key over 512 bytes is refused', 'put', 'k'.repeat(513), 'x'),
    op('a number value is refused', 'put', 'n', 42),
    op('an unknown type is refused', 'get', 'greeting', 'blob'),
    op('a cacheTtl under 30 is refused', 'get', 'greeting', { cacheTtl: 10 }),
    op('metadata over 1024 bytes is refused', 'put', 'big', 'x', { metadata: 'm'.repeat(1100) }),
    op('put list/a', 'put', 'list/a', '1'),
    op('put list/b', 'put', 'list/b', '2', { metadata: { m: true } }),
    op('put list/c', 'put', 'list/c', '3'),
    op('list by prefix', 'list', { prefix: 'list/' }),
    { ...op('list a first page of 2', 'list', { prefix: 'list/', limit: 2 }), compare: { body: 'json', normalize: noCursor } },
    op('a list limit over 1000 is refused', 'list', { limit: 1001 }),
    op('a list limit of 0 is refused', 'list', { limit: 0 }),
    op('bulk get as json', 'get', ['doc', 'missing'], 'json'),
    op('bulk get with metadata', 'getWithMetadata', ['doc', 'list/b']),
    op('bulk get as arrayBuffer is refused', 'get', ['doc'], 'arrayBuffer'),
    op('delete a key', 'delete', 'greeting'),
    op('it is gone', 'get', 'greeting'),
    op('deleting a missing key is fine', 'delete', 'never'),
  ],
};
