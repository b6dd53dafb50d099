/**
 * The R2 area: put/get/head/list/delete, ranges, conditional requests, http and custom metadata,
 * checksums, the fields of R2Object / R2ObjectBody, hostile keys and the error texts; multipart
 * uploads (create, resume, parts, complete, abort) with their limits and errors.
 */
import type { Area, HttpStep } from '../../step';

/** Upload times, version ids and cursors are each runtime's own: compare only their shape. */
function normalize(body: unknown): unknown {
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (!value || typeof value !== 'object') return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      // Miniflare leaves storageClass empty; R2 (and Hookbench) say "Standard".
      if (k === 'storageClass') out[k] = v === '' ? 'Standard' : v;
      else if (k === 'version' || k === 'cursor') out[k] = typeof v === 'string' && v.length > 0 ? 'present' : v;
      else if (k === 'uploaded') {
        const ms = (v as { date?: unknown } | undefined)?.date;
        out[k] = typeof ms === 'number' && Math.abs(Date.now() - ms) < 600_000 ? 'a recent Date' : v;
      } else out[k] = walk(v);
    }
    return out;
  };
  return walk(body);
}

const op = (name: string, r2Op: string, ...args: unknown[]): HttpStep => ({
  name,
  method: 'POST',
  path: '/r2',
  body: JSON.stringify({ op: r2Op, args }),
  compare: { body: 'json', normalize },
});

const serve = (name: string, key: string, headers: Record<string, string> = {}): HttpStep => ({
  name,
  path: `/r2/${encodeURIComponent(key)}`,
  headers,
  compare: { headers: ['content-type', 'content-language', 'content-disposition', 'cache-control', 'expires', 'content-range', 'etag'] },
});

/** A multipart action on the upload the worker keeps under `label`. */
const mp = (name: string, action: string, label: string, ...args: unknown[]): HttpStep => op(name, 'multipart', action, label, ...args);
const MIB5 = 5 * 1024 * 1024;
const FIVE_MIB_OF = (text: string) => ({ $repeat: [text, MIB5] });

const HELLO_MD5 = '5d41402abc4b2a76b9719d911017c592';
const HELLO_SHA1 = 'aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d';
const HELLO_SHA256 = '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824';
const FAR_PAST = { $date: Date.UTC(2000, 0, 1) };
const FAR_FUTURE = { $date: Date.UTC(2100, 0, 1) };

export const area: Area = {
  name: 'r2',
  folder: 'r2',
  steps: [
    op('a missing object is null (get)', 'get', 'missing'),
    op('a missing object is null (head)', 'head', 'missing'),
    op('put text', 'put', 'hello', 'hello'),
    op('get it', 'get', 'hello'),
    op('head it', 'head', 'hello'),
    op('put with http and custom metadata', 'put', 'doc.json', '{"a":1}', {
      httpMetadata: {
        contentType: 'application/json',
        contentLanguage: 'en',
        contentDisposition: 'inline',
        contentEncoding: 'identity',
        cacheControl: 'max-age=60',
        cacheExpiry: { $date: Date.UTC(2030, 0, 1) },
      },
      customMetadata: { by: 'test', n: '1' },
    }),
    op('get it with its metadata', 'get', 'doc.json'),
    op('http metadata from Headers', 'put', 'h.txt', 'x', {
      httpMetadata: { $headers: { 'content-type': 'text/plain', 'cache-control': 'no-store', expires: 'Wed, 01 Jan 2031 00:00:00 GMT', 'x-other': 'dropped' } },
    }),
    op('head it', 'head', 'h.txt'),
    op('put an ArrayBuffer', 'put', 'bytes', { $hex: '00ff10' }),
    op('put null (empty object)', 'put', 'empty', null),
    op('get the empty object', 'get', 'empty'),
    op('range offset+length', 'get', 'hello', { range: { offset: 1, length: 3 } }),
    op('range offset only', 'get', 'hello', { range: { offset: 2 } }),
    op('range length only', 'get', 'hello', { range: { length: 2 } }),
    op('range suffix', 'get', 'hello', { range: { suffix: 2 } }),
    op('range suffix longer than the object', 'get', 'hello', { range: { suffix: 50 } }),
    op('range length past the end', 'get', 'hello', { range: { offset: 3, length: 50 } }),
    op('range offset past the end', 'get', 'hello', { range: { offset: 10 } }),
    op('range from a Range header', 'get', 'hello', { range: { $headers: { range: 'bytes=1-2' } } }),
    op('range from a suffix Range header', 'get', 'hello', { range: { $headers: { range: 'bytes=-3' } } }),
    op('range from an open Range header', 'get', 'hello', { range: { $headers: { range: 'bytes=3-' } } }),
    op('an unsatisfiable Range header', 'get', 'hello', { range: { $headers: { range: 'bytes=9-12' } } }),
    op('a malformed Range header', 'get', 'hello', { range: { $headers: { range: 'items=0-1' } } }),
    op('a multi-range Range header', 'get', 'hello', { range: { $headers: { range: 'bytes=0-0,2-3' } } }),
    op('a Headers object without Range', 'get', 'hello', { range: { $headers: { 'x-other': '1' } } }),
    op('range with a negative offset', 'get', 'hello', { range: { offset: -1 } }),
    op('range with length 0', 'get', 'hello', { range: { offset: 1, length: 0 } }),
    op('range with a negative length', 'get', 'hello', { range: { offset: 0, length: -1 } }),
    op('range with length and suffix', 'get', 'hello', { range: { length: 1, suffix: 2 } }),
    op('range with a negative suffix', 'get', 'hello', { range: { suffix: -2 } }),
    op('a suffix Range header of 0', 'get', 'hello', { range: { $headers: { range: 'bytes=-0' } } }),
    op('a backwards Range header', 'get', 'hello', { range: { $headers: { range: 'bytes=3-1' } } }),
    op('range suffix 0', 'get', 'hello', { range: { suffix: 0 } }),
    op('range with offset, length and suffix', 'get', 'hello', { range: { offset: 1, suffix: 2 } }),
    op('onlyIf etagMatches (holds)', 'get', 'hello', { onlyIf: { etagMatches: HELLO_MD5 } }),
    op('onlyIf etagMatches (fails: no body)', 'get', 'hello', { onlyIf: { etagMatches: 'nope' } }),
    op('onlyIf etagDoesNotMatch (fails: no body)', 'get', 'hello', { onlyIf: { etagDoesNotMatch: HELLO_MD5 } }),
    op('onlyIf etagDoesNotMatch (holds)', 'get', 'hello', { onlyIf: { etagDoesNotMatch: 'other' } }),
    op('onlyIf uploadedBefore the future (holds)', 'get', 'hello', { onlyIf: { uploadedBefore: FAR_FUTURE } }),
    op('onlyIf uploadedBefore the past (fails)', 'get', 'hello', { onlyIf: { uploadedBefore: FAR_PAST } }),
    op('onlyIf uploadedAfter the past (holds)', 'get', 'hello', { onlyIf: { uploadedAfter: FAR_PAST } }),
    op('onlyIf uploadedAfter the future (fails)', 'get', 'hello', { onlyIf: { uploadedAfter: FAR_FUTURE } }),
    op('onlyIf from If-None-Match headers', 'get', 'hello', { onlyIf: { $headers: { 'if-none-match': `"${HELLO_MD5}"` } } }),
    op('onlyIf from If-Match headers', 'get', 'hello', { onlyIf: { $headers: { 'if-match': `"${HELLO_MD5}"` } } }),
    op('onlyIf on a missing object', 'get', 'missing', { onlyIf: { etagMatches: HELLO_MD5 } }),
    op('conditional put that fails is null', 'put', 'hello', 'changed', { onlyIf: { etagMatches: 'nope' } }),
    op('the object is unchanged', 'get', 'hello'),
    op('conditional put that holds', 'put', 'cond', 'v1', { onlyIf: { etagDoesNotMatch: '*' } }),
    op('put-if-absent again fails', 'put', 'cond', 'v2', { onlyIf: { etagDoesNotMatch: '*' } }),
    op('conditional put on uploadedBefore', 'put', 'cond', 'v3', { onlyIf: { uploadedBefore: FAR_FUTURE } }),
    op('md5 given and right', 'put', 'sum', 'hello', { md5: HELLO_MD5 }),
    op('sha1 given and right', 'put', 'sum', 'hello', { sha1: HELLO_SHA1 }),
    op('sha256 given as bytes and right', 'put', 'sum', 'hello', { sha256: { $hex: HELLO_SHA256 } }),
    op('md5 wrong', 'put', 'sum', 'hello', { md5: '00000000000000000000000000000000' }),
    op('sha256 wrong', 'put', 'sum', 'hello', { sha256: '0'.repeat(64) }),
    op('two checksums given', 'put', 'sum', 'hello', { md5: HELLO_MD5, sha1: HELLO_SHA1 }),
    op('md5 of the wrong length', 'put', 'sum', 'hello', { md5: 'abc' }),
    op('sha1 of the wrong length', 'put', 'sum', 'hello', { sha1: 'abcd' }),
    op('sha256 bytes of the wrong length', 'put', 'sum', 'hello', { sha256: { $hex: 'abcd' } }),
    op('md5 wrong in upper case', 'put', 'sum', 'hello', { md5: 'AB'.repeat(16) }),
    op('md5 not hex', 'put', 'sum', 'hello', { md5: 'z'.repeat(32) }),
    op('sha384 given and right', 'put', 'sum', 'hello', {
      sha384: '59e1748777448c69de6b800d7a33bbfb9ff1b463e44354c3553bcdb9c666fa90125a3c79f90397bdf5f6a13de828684f',
    }),
    op('the last good checksum put stands', 'head', 'sum'),
    op('hostile key ../x', 'put', '../x', 'x'),
    op('hostile key a/../../b', 'put', 'a/../../b', 'x'),
    op('key with NUL and unicode', 'put', 'nul\u0000é/ü', 'x'),
    op('get it back', 'get', 'nul\u0000é/ü'),
    op('a key of 1024 bytes', 'put', 'k'.repeat(1024), 'x'),
    op('a key of 1025 bytes is refused (put)', 'put', 'k'.repeat(1025), 'x'),
    op('a key of 1025 bytes is refused (get)', 'get', 'k'.repeat(1025)),
    op('a key of 1025 bytes is refused (head)', 'head', 'k'.repeat(1025)),
    op('an empty key (put)', 'put', '', 'x'),
    op('an empty key (get)', 'get', ''),
    op('a number value is refused', 'put', 'n', 42),
    op('delete the hostile keys and the long one', 'delete', ['../x', 'a/../../b', 'nul\u0000é/ü', 'k'.repeat(1024), 'cond', 'sum', 'bytes', 'empty', 'h.txt']),
    op('put dir/a', 'put', 'dir/a', '1', { customMetadata: { m: 'a' }, httpMetadata: { contentType: 'text/plain' } }),
    op('put dir/b', 'put', 'dir/b', '22'),
    op('put dir/sub/c', 'put', 'dir/sub/c', '333'),
    op('put dir/sub/d', 'put', 'dir/sub/d', '4444'),
    op('put dir/tub/e', 'put', 'dir/tub/e', '5'),
    op('list everything', 'list'),
    op('list by prefix', 'list', { prefix: 'dir/' }),
    op('list with a delimiter', 'list', { prefix: 'dir/', delimiter: '/' }),
    op('list with a delimiter and a limit', 'list', { prefix: 'dir/', delimiter: '/', limit: 3 }),
    op('list with include', 'list', { prefix: 'dir/', include: ['httpMetadata', 'customMetadata'] }),
    op('list with include customMetadata only', 'list', { prefix: 'dir/a', include: ['customMetadata'] }),
    op('list a first page of 2', 'list', { prefix: 'dir/', limit: 2 }),
    op('list with startAfter', 'list', { prefix: 'dir/', startAfter: 'dir/sub/c' }),
    op('a list limit of 0', 'list', { limit: 0 }),
    op('a list limit over 1000', 'list', { limit: 1001 }),
    op('a negative list limit', 'list', { limit: -1 }),
    op('an unknown include', 'list', { include: ['nope'] }),
    op('delete one', 'delete', 'dir/a'),
    op('deleting a missing key is fine', 'delete', 'never'),
    op('delete many', 'delete', ['dir/b', 'dir/sub/c']),
    op('list after deletes', 'list', { prefix: 'dir/' }),
    op(
      'deleting over 1000 keys',
      'delete',
      Array.from({ length: 1001 }, (_, i) => `k${i}`),
    ),
    mp('create a multipart upload with metadata', 'create', 'big', 'mp/big', {
      httpMetadata: { contentType: 'text/plain' },
      customMetadata: { via: 'multipart' },
    }),
    mp('resume it by its id (no I/O)', 'resume', 'big-again', 'big', 'mp/big'),
    mp('upload part 2 first (the short last part)', 'part', 'big', 2, 'tail'),
    mp('upload part 1 of 5 MiB through the resumed upload', 'part', 'big-again', 1, FIVE_MIB_OF('a')),
    op('the object does not exist before complete', 'head', 'mp/big'),
    op('nor does it list', 'list', { prefix: 'mp/' }),
    mp('complete with the short part listed first (sizes are checked in the given order)', 'complete', 'big', [2, 1]),
    mp('complete in part order', 'complete', 'big', [1, 2]),
    op('head the completed object (multipart etag)', 'head', 'mp/big'),
    op('get the tail of it', 'get', 'mp/big', { range: { offset: MIB5 } }),
    op('get across the part boundary', 'get', 'mp/big', { range: { offset: MIB5 - 2, length: 4 } }),
    op('list shows it', 'list', { prefix: 'mp/', include: ['httpMetadata', 'customMetadata'] }),
    mp('a part for a completed upload', 'part', 'big', 3, 'more'),
    mp('completing it again', 'complete', 'big', [1]),
    mp('aborting a completed upload', 'abort', 'big'),
    mp('create a second upload', 'create', 'small', 'mp/small'),
    mp('a small part 1', 'part', 'small', 1, 'x'),
    mp('a small part 2', 'part', 'small', 2, 'y'),
    mp('completing with a too-small part', 'complete', 'small'),
    mp('completing with a part never sent', 'complete', 'small', [1, 3]),
    mp('completing with a wrong etag', 'complete', 'small', [{ partNumber: 2, etag: 'wrong' }]),
    mp('completing with a part twice', 'complete', 'small', [2, 2]),
    mp('sending part 2 again replaces it', 'part', 'small', 2, 'z'),
    mp('completing with the replaced etag', 'completeWithFirstEtag', 'small', 2),
    mp('part number 0', 'part', 'small', 0, 'x'),
    mp('part number -1', 'part', 'small', -1, 'x'),
    mp('part number 10000', 'part', 'small', 10000, 'x'),
    mp('part number 10001', 'part', 'small', 10001, 'x'),
    mp('part number 1.5', 'part', 'small', 1.5, 'x'),
    mp('a number as the value', 'part', 'small', 3, 42),
    mp('an empty part', 'part', 'small', 4, ''),
    mp('completing with one (last) small part', 'complete', 'small', [2]),
    op('the single-part object', 'get', 'mp/small'),
    mp('create a third upload', 'create', 'gone', 'mp/gone'),
    mp('a part for it', 'part', 'gone', 1, 'x'),
    mp('abort it', 'abort', 'gone'),
    mp('a part after abort', 'part', 'gone', 2, 'x'),
    mp('complete after abort', 'complete', 'gone', [1]),
    mp('abort again', 'abort', 'gone'),
    op('the aborted key does not exist', 'head', 'mp/gone'),
    mp('resume an unknown upload id', 'resume', 'unknown', { uploadId: 'no-such-upload' }, 'mp/x'),
    mp('a part for an unknown upload', 'part', 'unknown', 1, 'x'),
    mp('complete an unknown upload', 'complete', 'unknown', [{ partNumber: 1, etag: 'x' }]),
    mp('abort an unknown upload', 'abort', 'unknown'),
    mp('create a fourth upload', 'create', 'other', 'mp/other'),
    mp('resume its id under another key', 'resume', 'wrong-key', 'other', 'mp/not-other'),
    mp('a part under the wrong key', 'part', 'wrong-key', 1, 'x'),
    mp('complete under the wrong key', 'complete', 'wrong-key', [{ partNumber: 1, etag: 'x' }]),
    mp('abort under the wrong key', 'abort', 'wrong-key'),
    mp('part 1 of 5 MiB', 'part', 'other', 1, FIVE_MIB_OF('b')),
    mp('a last part longer than the others', 'part', 'other', 2, { $repeat: ['c', MIB5 + 1] }),
    mp('completing with a last part longer than the first', 'complete', 'other'),
    mp('completing with no parts', 'complete', 'other', []),
    mp('abort the fourth', 'abort', 'other'),
    mp('a hostile key ../mp', 'create', 'hostile', '../mp'),
    mp('a part for it', 'part', 'hostile', 1, 'h'),
    mp('complete it', 'complete', 'hostile'),
    op('get it back', 'get', '../mp'),
    mp('a key of 1025 bytes', 'create', 'long', 'k'.repeat(1025)),
    op('replace a multipart object with a put', 'put', 'mp/big', 'plain'),
    op('delete the multipart objects', 'delete', ['mp/small', '../mp', 'mp/big']),
    op('list after', 'list', { prefix: 'mp/' }),
    serve('a worker serves an object', 'doc.json'),
    serve('with a Range header', 'hello', { range: 'bytes=0-1' }),
    serve('If-None-Match with its etag is 304', 'hello', { 'if-none-match': `"${HELLO_MD5}"` }),
    serve('If-Match with another etag is 412', 'hello', { 'if-match': '"nope"' }),
    serve('If-Modified-Since the future is 304', 'hello', { 'if-modified-since': 'Fri, 01 Jan 2100 00:00:00 GMT' }),
    serve('If-Unmodified-Since the past is 412', 'hello', { 'if-unmodified-since': 'Sat, 01 Jan 2000 00:00:00 GMT' }),
    serve('a missing object is 404', 'gone'),
  ],
};
