/**
 * A recorded delivery made into a new one, for "replay as a new delivery": the provider's delivery
 * id (the header or payload field its dedup key comes from, DeliveryShape.deliveryId) gets a fresh
 * value of the same form, so the receiver processes it instead of answering "duplicate". The caller
 * signs the result afresh.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { atPath, schemeFor, type ProviderName } from '../signing';

export interface NewDelivery {
  readonly headers: Record<string, string>;
  readonly body: Buffer;
  /** The new delivery id (Standard Webhooks signs it: pass it to `sign` as `id`). */
  readonly id: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A fresh id shaped like `old`: a UUID for a UUID, the same prefix (`evt_`, `Ev`, `msg_`) otherwise. */
export function freshId(old: string | undefined): string {
  if (old === undefined || UUID.test(old)) return randomUUID();
  const prefix = /^[A-Za-z]+[_-]?/.exec(old)?.[0] ?? '';
  return `${prefix}${randomBytes(12).toString('base64url').replace(/[-_]/g, 'x')}`;
}

function headerName(headers: Record<string, string>, name: string): string | undefined {
  return Object.keys(headers).find((h) => h.toLowerCase() === name);
}

/** Sets a dotted path in parsed JSON when its leaf is a string; true when it did. */
function setPath(value: unknown, path: string, to: string): boolean {
  const keys = path.split('.');
  let node = value as Record<string, unknown> | undefined;
  for (const key of keys.slice(0, -1)) {
    const next = node?.[key];
    if (typeof next !== 'object' || next === null) return false;
    node = next as Record<string, unknown>;
  }
  const leaf = keys.at(-1)!;
  if (!node || typeof node[leaf] !== 'string') return false;
  node[leaf] = to;
  return true;
}

/** `makeId` gives the new id from the old one (a fresh random one of its shape unless told otherwise). */
export function asNewDelivery(
  provider: ProviderName,
  headers: Record<string, string>,
  body: Buffer,
  makeId: (old: string | undefined) => string = freshId,
): NewDelivery {
  const locators = schemeFor(provider).shape.deliveryId;
  for (const locator of locators) {
    if (locator.from === 'header') {
      const name = headerName(headers, locator.name);
      if (name === undefined) continue;
      const id = makeId(headers[name]);
      return { headers: { ...headers, [name]: id }, body, id };
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      continue;
    }
    const old = atPath(parsed, locator.path);
    const id = makeId(typeof old === 'string' ? old : undefined);
    if (!setPath(parsed, locator.path, id)) continue;
    const pretty = /\n\s/.test(body.toString('utf8'));
    return { headers, body: Buffer.from(JSON.stringify(parsed, null, pretty ? 2 : undefined)), id };
  }
  // No id in the delivery (dedup by the body's hash): add the provider's first id header.
  const first = locators.find((l) => l.from === 'header');
  const id = makeId(undefined);
  if (first?.from === 'header') return { headers: { ...headers, [first.name]: id }, body, id };
  return { headers, body, id };
}
