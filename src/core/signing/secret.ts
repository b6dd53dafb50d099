import { noSecretMessage } from '../contract/providers';
import { fail, type DeliveryShape, type VerifyResult } from './types';

/** The `no_secret` failure when a provider's secret is not configured, else undefined. */
export function missingSecret(secret: string | undefined, shape: DeliveryShape): VerifyResult | undefined {
  if (secret) return undefined;
  return fail('no_secret', noSecretMessage(shape.secretEnv));
}
