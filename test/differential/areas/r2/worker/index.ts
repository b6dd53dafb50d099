// POST /r2 {op, args}: calls env.BUCKET[op](...args) and answers what came back as JSON, or the
// error. Arguments are JSON with tagged values for what JSON cannot say: {$date: ms},
// {$headers: {...}}, {$bytes: "text"} (an ArrayBuffer), {$hex: "…"} (an ArrayBuffer of those bytes).
// {$repeat: ["a", n]} is a string of n "a"s (multipart parts of 5 MiB without sending them).
// POST /r2 {op: "multipart", args: [action, label, ...]} drives multipart uploads by label (see
// `multipart`): the upload objects and the parts they returned live in this isolate between steps.
// GET /r2/<key> serves an object as a worker would (writeHttpMetadata, httpEtag, range, 304/412).
interface Env {
  BUCKET: R2Bucket & Record<string, (...args: unknown[]) => Promise<unknown>>;
}

function revive(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(revive);
  if (!value || typeof value !== 'object') return value;
  const tagged = value as Record<string, unknown>;
  if ('$date' in tagged) return new Date(tagged['$date'] as number);
  if ('$headers' in tagged) return new Headers(tagged['$headers'] as Record<string, string>);
  if ('$bytes' in tagged) return new TextEncoder().encode(tagged['$bytes'] as string).buffer;
  if ('$repeat' in tagged) {
    const [text, times] = tagged['$repeat'] as [string, number];
    return text.repeat(times);
  }
  if ('$hex' in tagged) {
    const hex = tagged['$hex'] as string;
    return new Uint8Array(hex.match(/../g)!.map((h) => parseInt(h, 16))).buffer;
  }
  return Object.fromEntries(Object.entries(tagged).map(([k, v]) => [k, revive(v)]));
}

const hex = (buffer: ArrayBuffer | undefined) => (buffer ? [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, '0')).join('') : undefined);

/** An R2Object / R2ObjectBody as plain JSON, field by field (its fields are getters in workerd). */
async function plainObject(o: R2Object | R2ObjectBody): Promise<unknown> {
  const http = o.httpMetadata ?? {};
  const checksums = o.checksums;
  const out: Record<string, unknown> = {
    key: o.key,
    version: o.version,
    size: o.size,
    etag: o.etag,
    httpEtag: o.httpEtag,
    uploaded: o.uploaded instanceof Date ? { date: o.uploaded.getTime() } : String(o.uploaded),
    httpMetadata: { ...http, ...(http.cacheExpiry ? { cacheExpiry: http.cacheExpiry.toISOString() } : {}) },
    customMetadata: o.customMetadata,
    range: o.range,
    storageClass: o.storageClass,
    checksums: checksums.toJSON(),
    checksumBytes: { md5: hex(checksums.md5), sha1: hex(checksums.sha1), sha256: hex(checksums.sha256) },
    hasBody: 'body' in o,
  };
  const headers = new Headers();
  o.writeHttpMetadata(headers);
  out['written'] = Object.fromEntries(headers);
  if ('body' in o) {
    out['bodyUsed'] = o.bodyUsed;
    out['text'] = await o.text();
    out['bodyUsedAfter'] = o.bodyUsed;
  }
  return out;
}

async function plain(value: unknown): Promise<unknown> {
  if (value === null) return null;
  if (value === undefined) return { undefined: true };
  if (typeof value === 'object' && 'objects' in value) {
    const listed = value as R2Objects;
    return { ...listed, objects: await Promise.all(listed.objects.map(plainObject)) };
  }
  if (typeof value === 'object' && 'key' in value) return plainObject(value as R2Object);
  return value;
}

const uploads = new Map<string, R2MultipartUpload>();
const uploaded = new Map<string, R2UploadedPart[]>();

/** A part as JSON: its etag is each runtime's own random id, so only whether it is a string. */
const plainPart = (part: R2UploadedPart) => ({ partNumber: part.partNumber, partEtag: typeof part.etag === 'string' && part.etag.length > 0 ? 'present' : part.etag });

/**
 * create(label, key, options) · resume(label, fromLabel | {uploadId}, key) · part(label, number,
 * value) · complete(label, [numbers] | [{partNumber, etag}] | undefined = every part sent) ·
 * abort(label).
 */
async function multipart(env: Env, action: string, label: string, ...args: unknown[]): Promise<unknown> {
  const upload = () => uploads.get(label)!;
  switch (action) {
    case 'create': {
      const created = await env.BUCKET.createMultipartUpload(args[0] as string, args[1] as R2MultipartOptions);
      uploads.set(label, created);
      uploaded.set(label, []);
      return { key: created.key, uploadId: typeof created.uploadId === 'string' && created.uploadId.length > 0 ? 'present' : created.uploadId };
    }
    case 'resume': {
      const from = args[0] as string | { uploadId: string };
      const id = typeof from === 'string' ? uploads.get(from)!.uploadId : from.uploadId;
      const resumed = env.BUCKET.resumeMultipartUpload(args[1] as string, id);
      uploads.set(label, resumed);
      uploaded.set(label, typeof from === 'string' ? (uploaded.get(from) ?? []) : []);
      return { key: resumed.key, sameId: resumed.uploadId === id };
    }
    case 'part': {
      const part = await upload().uploadPart(args[0] as number, args[1] as string);
      uploaded.get(label)!.push(part);
      return plainPart(part);
    }
    case 'complete': {
      const sent = uploaded.get(label) ?? [];
      const chosen = args[0] as (number | { partNumber: number; etag: string })[] | undefined;
      const parts = chosen === undefined ? sent : chosen.map((c) => (typeof c === 'number' ? sent.filter((p) => p.partNumber === c).at(-1) ?? { partNumber: c, etag: 'never-sent' } : c));
      return plainObject(await upload().complete(parts));
    }
    case 'completeWithFirstEtag': {
      // The etag a part number had before it was sent again.
      const first = (uploaded.get(label) ?? []).find((p) => p.partNumber === args[0])!;
      return plainObject(await upload().complete([first]));
    }
    case 'abort':
      return { undefined: (await upload().abort()) === undefined };
  }
  throw new Error(`unknown multipart action ${action}`);
}

async function serve(request: Request, env: Env, key: string): Promise<Response> {
  const object = await env.BUCKET.get(key, { onlyIf: request.headers, range: request.headers });
  if (object === null) return new Response('not found', { status: 404 });
  const headers = new Headers();
  object.writeHttpMetadata(headers);
  headers.set('etag', object.httpEtag);
  if (!('body' in object)) return new Response(null, { status: request.headers.has('if-none-match') ? 304 : 412, headers });
  const range = object.range as { offset: number; length: number } | undefined;
  if (range && request.headers.has('range')) headers.set('content-range', `bytes ${range.offset}-${range.offset + range.length - 1}/${object.size}`);
  return new Response(object.body, { status: request.headers.has('range') ? 206 : 200, headers });
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    if (request.method === 'GET' && url.pathname.startsWith('/r2/')) return serve(request, env, decodeURIComponent(url.pathname.slice(4)));
    const { op, args } = (await request.json()) as { op: string; args: unknown[] };
    try {
      if (op === 'multipart') {
        const [action, label, ...rest] = revive(args) as [string, string, ...unknown[]];
        return Response.json({ result: await multipart(env, action, label, ...rest) });
      }
      return Response.json({ result: await plain(await env.BUCKET[op]!(...(revive(args) as unknown[]))) });
    } catch (error) {
      return Response.json({ error: (error as Error).message, name: (error as Error).name });
    }
  },
};
