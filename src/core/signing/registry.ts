import { generic } from './generic';
import { github } from './github';
import { shopify } from './shopify';
import { slack } from './slack';
import { standard } from './standard';
import { stripe } from './stripe';
import { twilio } from './twilio';
import { PROVIDERS, type HeaderMap, type ProviderName, type SignatureScheme } from './types';

const SCHEMES: Readonly<Record<ProviderName, SignatureScheme>> = { github, stripe, twilio, slack, shopify, standard, generic };

export function isProviderName(name: string): name is ProviderName {
  return (PROVIDERS as readonly string[]).includes(name);
}

/** The scheme of a provider; throws a TypeError naming the known ones for anything else. */
export function schemeFor(name: string): SignatureScheme {
  if (!isProviderName(name)) throw new TypeError(`unknown provider "${name}" (known: ${PROVIDERS.join(', ')})`);
  return SCHEMES[name];
}

/**
 * The provider whose signature header is present. Specific providers are tried before `generic`,
 * whose `X-Signature` others could in principle also send.
 */
export function detectProvider(headers: HeaderMap): ProviderName | undefined {
  return PROVIDERS.find((name) => SCHEMES[name].shape.signatureHeaders.some((h) => headers[h] !== undefined));
}
