// Sign and verify webhooks of every supported provider on the raw bytes.
export * from './types';
export { createGeneric, generic, GENERIC_DEFAULTS, type GenericOptions } from './generic';
export { normalizeHeaders } from './headers';
export { atPath, locate } from './locate';
export { EVENT_TYPE, requestEventType } from './eventType';
export { detectProvider, isProviderName, schemeFor } from './registry';
export { DEFAULT_TOLERANCE_SECONDS } from './timestamps';
export { entityOf, parsedBody } from './entity';
export { parseForm } from './twilio';
