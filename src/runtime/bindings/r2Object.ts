/**
 * The shapes an R2 binding hands back: `R2Object` (metadata, `writeHttpMetadata`), `R2ObjectBody`
 * (plus the bytes as a stream and the body readers) and `R2Checksums`, with the fields workerd's
 * R2 client gives them.
 */
import { streamOf, toArrayBuffer } from './values';

export interface R2HttpMetadata {
  contentType?: string;
  contentLanguage?: string;
  contentDisposition?: string;
  contentEncoding?: string;
  cacheControl?: string;
  cacheExpiry?: Date;
}

/** The row stored per object: http metadata's cacheExpiry as ms, checksums as hex. */
export interface StoredObject {
  readonly key: string;
  readonly version: string;
  readonly size: number;
  readonly etag: string;
  readonly uploaded: number;
  readonly http: Record<string, string | number>;
  readonly custom: Record<string, string>;
  readonly checksums: Record<string, string>;
}

export class R2Checksums {
  readonly md5?: ArrayBuffer;
  readonly sha1?: ArrayBuffer;
  readonly sha256?: ArrayBuffer;
  readonly sha384?: ArrayBuffer;
  readonly sha512?: ArrayBuffer;

  constructor(private readonly hex: Readonly<Record<string, string>>) {
    for (const [name, value] of Object.entries(hex)) (this as Record<string, unknown>)[name] = toArrayBuffer(Buffer.from(value, 'hex'));
  }

  toJSON(): Record<string, string> {
    return { ...this.hex };
  }
}

export function httpMetadataOf(stored: StoredObject['http']): R2HttpMetadata {
  const out: R2HttpMetadata = {};
  for (const [name, value] of Object.entries(stored)) {
    if (name === 'cacheExpiry') out.cacheExpiry = new Date(Number(value));
    else (out as Record<string, unknown>)[name] = value;
  }
  return out;
}

export class R2Object {
  readonly key: string;
  readonly version: string;
  readonly size: number;
  readonly etag: string;
  readonly httpEtag: string;
  readonly checksums: R2Checksums;
  readonly uploaded: Date;
  readonly httpMetadata: R2HttpMetadata;
  readonly customMetadata: Record<string, string>;
  /** The bytes a get returned; the whole object for head and a failed condition, absent in a list. */
  readonly range: { offset: number; length: number } | undefined;
  readonly storageClass = 'Standard';

  constructor(
    stored: StoredObject,
    range: { offset: number; length: number } | null = { offset: 0, length: stored.size },
    include: { http: boolean; custom: boolean } = { http: true, custom: true },
  ) {
    this.key = stored.key;
    this.version = stored.version;
    this.size = stored.size;
    this.etag = stored.etag;
    this.httpEtag = `"${stored.etag}"`;
    this.checksums = new R2Checksums(stored.checksums);
    this.uploaded = new Date(stored.uploaded);
    this.httpMetadata = include.http ? httpMetadataOf(stored.http) : {};
    this.customMetadata = include.custom ? { ...stored.custom } : {};
    this.range = range ?? undefined;
  }

  /** Sets the response headers the object's http metadata names. */
  writeHttpMetadata(headers: Headers): void {
    const m = this.httpMetadata;
    if (m.contentType !== undefined) headers.set('content-type', m.contentType);
    if (m.contentLanguage !== undefined) headers.set('content-language', m.contentLanguage);
    if (m.contentDisposition !== undefined) headers.set('content-disposition', m.contentDisposition);
    if (m.contentEncoding !== undefined) headers.set('content-encoding', m.contentEncoding);
    if (m.cacheControl !== undefined) headers.set('cache-control', m.cacheControl);
    if (m.cacheExpiry !== undefined) headers.set('expires', m.cacheExpiry.toUTCString());
  }
}

export class R2ObjectBody extends R2Object {
  private used = false;
  private readonly stream: ReadableStream<Uint8Array>;

  constructor(
    stored: StoredObject,
    private readonly data: Uint8Array,
    range: { offset: number; length: number },
  ) {
    super(stored, range);
    this.stream = streamOf(data);
  }

  get body(): ReadableStream<Uint8Array> {
    return this.stream;
  }

  get bodyUsed(): boolean {
    return this.used || this.stream.locked;
  }

  private take(): Uint8Array {
    if (this.bodyUsed) throw new TypeError('Body has already been used. It can only be used once. Use tee() first if you need to read it twice.');
    this.used = true;
    return this.data;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return toArrayBuffer(this.take());
  }

  async bytes(): Promise<Uint8Array> {
    return new Uint8Array(this.take());
  }

  async text(): Promise<string> {
    return new TextDecoder().decode(this.take());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async blob(): Promise<Blob> {
    const type = this.httpMetadata.contentType;
    return new Blob([this.take()], type === undefined ? {} : { type });
  }
}
