/**
 * Parses a verified body: JSON, or form fields (Twilio, Slack slash commands; Slack
 * interactivity puts its JSON in a `payload` field). Throws on anything else.
 */
import { parseForm } from '../../core/signing';

export interface ParsedPayload {
  readonly payload: unknown;
  /**
   * The text stored in the `payload` column: a JSON body as it arrived (re-serialising would
   * round 18-digit ids and change the bytes), other bodies as JSON of their fields.
   */
  readonly stored: string;
}

export function parsePayload(body: Uint8Array, contentType: string | null): ParsedPayload {
  const text = Buffer.from(body)
    .toString('utf8')
    .replace(/^\uFEFF/, '');
  // JSON text is JSON whatever the header says (curl -d labels everything as a form).
  const looksLikeJson = /^\s*[[{]/.test(text);
  if (!looksLikeJson && contentType?.toLowerCase().includes('application/x-www-form-urlencoded')) {
    const form = parseForm(body);
    const embedded = form['payload']?.[0];
    const payload = embedded !== undefined ? (JSON.parse(embedded) as unknown) : form;
    return { payload, stored: JSON.stringify(payload) };
  }
  return { payload: JSON.parse(text) as unknown, stored: text };
}
