/**
 * The webhook providers Hookbench signs and verifies for, and the environment variable that holds
 * each one's secret: names both processes use (the serve process reads the variables, the
 * extension sets them from its secret storage, fixtures and the CLI name providers), and the
 * message that says a secret is missing, which the serve process logs and the extension rewrites.
 */
export const PROVIDERS = ['github', 'stripe', 'twilio', 'slack', 'shopify', 'standard', 'generic'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

/** Where each provider's secret comes from: the serve process's environment. */
export const SECRET_ENV: Readonly<Record<ProviderName, string>> = {
  github: 'GITHUB_WEBHOOK_SECRET',
  stripe: 'STRIPE_WEBHOOK_SECRET',
  twilio: 'TWILIO_AUTH_TOKEN',
  slack: 'SLACK_SIGNING_SECRET',
  shopify: 'SHOPIFY_WEBHOOK_SECRET',
  standard: 'STANDARD_WEBHOOK_SECRET',
  generic: 'GENERIC_WEBHOOK_SECRET',
};

/** How a person names each provider (the extension's secret pick). */
export const PROVIDER_TITLES: Readonly<Record<ProviderName, string>> = {
  github: 'GitHub',
  stripe: 'Stripe',
  twilio: 'Twilio',
  slack: 'Slack',
  shopify: 'Shopify',
  standard: 'Standard Webhooks',
  generic: 'Generic (X-Signature)',
};

/** Why a delivery failed `no_secret`: names the variable to set. */
export const noSecretMessage = (secretEnv: string): string => `no secret configured (set ${secretEnv})`;
const NO_SECRET = /no secret configured \(set (\w+)\)/;

/** `text` with its (first) no-secret message replaced by what `say` makes of the variable's name. */
export function replaceNoSecret(text: string, say: (secretEnv: string) => string): string {
  return text.replace(NO_SECRET, (_message, secretEnv: string) => say(secretEnv));
}
