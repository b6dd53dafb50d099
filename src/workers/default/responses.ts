import { noteDelivery, type DeliveryNotes } from '../../core/contract/notes';

/** The seed's answers are short text/plain bodies; `notes` tell the receiver about the delivery. */
export function textResponse(body: string, status: number, notes: DeliveryNotes = {}): Response {
  return noteDelivery(new Response(body, { status, headers: { 'content-type': 'text/plain;charset=UTF-8' } }), notes);
}
