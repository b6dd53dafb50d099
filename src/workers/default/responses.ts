import { noteDelivery, type DeliveryNotes } from '../../core/contract/notes';

/**
 * The seed's answers are short text/plain bodies; `notes` tell the receiver about the delivery
 * `request` carries (the delivery channel, src/core/contract/notes.ts).
 */
export function textResponse(request: Request, body: string, status: number, notes: DeliveryNotes = {}): Response {
  noteDelivery(request, notes);
  return new Response(body, { status, headers: { 'content-type': 'text/plain;charset=UTF-8' } });
}
