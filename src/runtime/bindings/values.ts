/** Bytes from the value types bindings accept (string, ArrayBuffer, views, streams, Blobs). */

/** The bytes of `value`, or undefined when it is none of the accepted types. */
export async function toBytes(value: unknown): Promise<Uint8Array | undefined> {
  if (typeof value === 'string') return new TextEncoder().encode(value);
  if (value instanceof ArrayBuffer) return new Uint8Array(value.slice(0));
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength));
  if (value instanceof ReadableStream) return new Uint8Array(await new Response(value).arrayBuffer());
  if (typeof Blob !== 'undefined' && value instanceof Blob) return new Uint8Array(await value.arrayBuffer());
  return undefined;
}

/** A copy of `bytes` as its own ArrayBuffer (never a view on a shared one). */
export function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  const out = new ArrayBuffer(bytes.byteLength);
  new Uint8Array(out).set(bytes);
  return out;
}

export function streamOf(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      if (bytes.byteLength > 0) controller.enqueue(bytes);
      controller.close();
    },
  });
}
