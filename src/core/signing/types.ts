import type { ProviderName } from '../contract/providers';

export { PROVIDERS, type ProviderName } from '../contract/providers';

/** Header names are matched case-insensitively; keys of this map are lower-case. */
export type HeaderMap = Readonly<Record<string, string>>;

/** Why a verification failed. The messages never contain the expected signature. */
export type FailureReason =
  'no_secret' | 'invalid_secret' | 'missing_header' | 'malformed_header' | 'missing_url' | 'stale' | 'too_new' | 'body_mismatch' | 'mismatch';

export type VerifyResult = { readonly valid: true } | { readonly valid: false; readonly reason: FailureReason; readonly message: string };

export interface SignInput {
  readonly secret: string;
  /** The raw bytes that go on the wire. */
  readonly body: Uint8Array;
  /** Twilio signs the full URL Twilio requests. */
  readonly url?: string;
  /** Unix seconds for the schemes that carry a timestamp; defaults to the clock. */
  readonly timestamp?: number;
  /** Message id for Standard Webhooks; random when absent. */
  readonly id?: string;
}

export interface SignOutput {
  /** Header names in the provider's own spelling. */
  readonly headers: Record<string, string>;
  /** Twilio's JSON variant signs a URL with `bodySHA256` appended; the request must go there. */
  readonly url?: string;
}

export interface VerifyInput {
  readonly secret: string | undefined;
  readonly body: Uint8Array;
  readonly headers: HeaderMap;
  readonly url?: string;
}

/** The world a scheme needs besides its input: a clock (ms since epoch) and the time window. */
export interface VerifyOptions {
  readonly now?: () => number;
  /** Seconds a timestamp may be away from `now`, both ways (default 300, as every provider). */
  readonly toleranceSeconds?: number;
}

export interface SignOptions {
  readonly now?: () => number;
  readonly randomId?: () => string;
}

/** Where a value lives in a delivery: a header, or a dotted path into the parsed payload (JSON or form). */
export type Locator =
  | { readonly from: 'header'; readonly name: string }
  | { readonly from: 'payload'; readonly path: string; readonly when?: { readonly path: string; readonly equals: string } };

/** What the receiver and the explorer read from a provider's deliveries, as data. */
export interface DeliveryShape {
  /** Headers whose presence identifies the provider. */
  readonly signatureHeaders: readonly string[];
  readonly eventType: readonly Locator[];
  /** Refines the event type (GitHub's `action`, say). */
  readonly action: readonly Locator[];
  /** Deduplication key: stable across the provider's retries. */
  readonly deliveryId: readonly Locator[];
  /** The entity the delivery belongs to, in order of preference. */
  readonly entity: readonly Locator[];
  /** The name of the entity field, for `Missing <field>` answers. */
  readonly entityField: string;
  /**
   * Whether the provider's entity ids ignore case: GitHub's owner/repo names do (`Acme/Widgets` is
   * `acme/widgets`), so they are lower-cased; Stripe, Twilio, Slack and Shopify ids do not
   * (`cus_AbC` and `cus_abc` are two customers), so they are kept as they are.
   */
  readonly entityIgnoresCase: boolean;
  /** Environment variable that holds the secret. */
  readonly secretEnv: string;
}

export interface SignatureScheme {
  readonly name: ProviderName;
  readonly shape: DeliveryShape;
  sign(input: SignInput, options?: SignOptions): SignOutput;
  verify(input: VerifyInput, options?: VerifyOptions): VerifyResult;
}

export const VALID: VerifyResult = Object.freeze({ valid: true });

export function fail(reason: FailureReason, message: string): VerifyResult {
  return { valid: false, reason, message };
}
