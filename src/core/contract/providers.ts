/**
 * The webhook providers Hookbench signs and verifies for, and the environment variable that holds
 * each one's secret: names both processes use (the serve process reads the variables, the
 * extension sets them from its secret storage, fixtures and the CLI name providers).
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
