// Test deliveries for every provider, ready to sign and send.
import { randomUUID } from 'node:crypto';
import type { ProviderName } from '../signing';
import { githubTemplates } from './github';
import { providerTemplates } from './providers';
import { stripeTemplates } from './stripe/templates';
import type { Template, UnsignedDelivery } from './types';

export type { Template, TemplateContext, UnsignedDelivery } from './types';
export { asNewDelivery, freshId, type NewDelivery } from './newDelivery';

let cache: Template[] | undefined;

export function allTemplates(): Template[] {
  cache ??= [...githubTemplates(), ...stripeTemplates(), ...providerTemplates(), genericTemplate];
  return cache;
}

export function templatesFor(provider: ProviderName): Template[] {
  return allTemplates().filter((t) => t.provider === provider);
}

export function findTemplate(provider: ProviderName, event: string): Template | undefined {
  return allTemplates().find((t) => t.provider === provider && t.event === event);
}

export function buildDelivery(template: Template, options: { entity?: string; id?: string; now?: Date } = {}): UnsignedDelivery {
  return template.build({ entity: options.entity, id: options.id ?? randomUUID(), now: options.now ?? new Date() });
}

const genericTemplate: Template = {
  provider: 'generic',
  event: 'event',
  description: 'a JSON event in the seed’s outbound shape (X-Signature: hex HMAC-SHA256)',
  build: (c) => ({
    body: Buffer.from(JSON.stringify({ id: c.id, type: 'event', entity: c.entity ?? null, createdAt: c.now.toISOString() }, null, 2)),
    headers: { 'content-type': 'application/json', 'x-event-type': 'event', 'x-delivery-id': c.id },
  }),
};
