/**
 * Parses a verified body: JSON, or form fields (Twilio, Slack slash commands; Slack
 * interactivity puts its JSON in a `payload` field). Throws on anything else.
 */
import { parseForm } from '../../core/signing';

/**
 * The text stored in the `payload` column: a JSON body as it arrived (re-serialising would round
 * 18-digit ids and reorder nothing but still change bytes), other bodies as JSON of their fields.
 */
export function payloadText(body: Uint8Array, payload: unknown): string {
  const text = Buffer.from(body).toString('utf8').replace(/^\uFEFF/, '');
  return /^\s*[[{]/.test(text) ? text : JSON.stringify(payload);
}

export function parsePayload(body: Uint8Array, contentType: string | null): unknown {
  const text = Buffer.from(body).toString('utf8').replace(/^\uFEFF/, '');
  // JSON text is JSON whatever the header says (curl -d labels everything as a form).
  const looksLikeJson = /^\s*[[{]/.test(text);
  if (!looksLikeJson && contentType?.toLowerCase().includes('application/x-www-form-urlencoded')) {
    const form = parseForm(body);
    const embedded = form['payload']?.[0];
    return embedded !== undefined ? JSON.parse(embedded) : form;
  }
  return JSON.parse(text);
}
