import type { ProviderName } from '../signing';

/** What a template needs to make a delivery: the entity, ids and the clock. */
export interface TemplateContext {
  readonly entity: string | undefined;
  readonly id: string;
  readonly now: Date;
}

/** An unsigned delivery: the body bytes and the provider's own headers (signature added later). */
export interface UnsignedDelivery {
  readonly body: Buffer;
  readonly headers: Record<string, string>;
}

export interface Template {
  readonly provider: ProviderName;
  /** As the provider names it: `push`, `pull_request.closed`, `invoice.paid`, `orders/create`. */
  readonly event: string;
  readonly description: string;
  build(context: TemplateContext): UnsignedDelivery;
}

const BIG = '\u0000bigint:';

/**
 * An integer beyond 2^53, written digit for digit into the JSON (Shopify's 18-digit ids): a
 * JavaScript number would round it.
 */
export const bigint = (digits: string): string => `${BIG}${digits}`;

export const json = (value: unknown, headers: Record<string, string>): UnsignedDelivery => ({
  body: Buffer.from(JSON.stringify(value, null, 2).replace(/"\\u0000bigint:(\d+)"/g, '$1')),
  headers: { 'content-type': 'application/json', ...headers },
});

export const form = (fields: Record<string, string>, headers: Record<string, string>): UnsignedDelivery => ({
  body: Buffer.from(new URLSearchParams(fields).toString()),
  headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
});

export const unix = (date: Date) => Math.floor(date.getTime() / 1000);
