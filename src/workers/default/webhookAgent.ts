/**
 * One agent per entity (repository, customer, workspace, shop…): verifies each delivery on the raw
 * bytes, dedups by the provider's delivery id, stores it in the `events` table (its columns and the
 * SQL other rooms run on it: src/core/contract/tables.ts), applies
 * retention, and keeps a small state that every connected client receives.
 */
import { createHash } from 'node:crypto';
import { Agent, callable } from 'agents';
import { locate, schemeFor, type HeaderMap, type ProviderName } from '../../core/signing';
import { notifyChat, sendJsonWebhook } from '../../core/outbound';
import { describeEvent } from './describe';
import { checkDelivery, checkedBefore, webhookRequest } from './check';
import type { StoredEvent, WebhookState } from '../../core/contract/instances';
import type { ParsedPayload } from './payload';
import { noteEventStored, verificationNote } from '../../core/contract/notes';
import { EVENTS_DDL, EVENTS_INDEX_DDL, EVENTS_INSERT, eventValues } from '../../core/contract/tables';
import { STATE_HISTORY_DDL, STATE_HISTORY_INSERT, STATE_HISTORY_RETENTION } from '../../core/contract/timeline';
import { textResponse } from './responses';

export interface WebhookEnv {
  readonly WEBHOOK_AGENT: unknown;
  /** Keep this many newest events (default 100; 0 keeps all). */
  readonly HOOKBENCH_RETENTION_COUNT?: string;
  /** Delete events older than this many days (default 30; 0 keeps them). */
  readonly HOOKBENCH_RETENTION_DAYS?: string;
  /** The public URL Twilio signs when the receiver sits behind a tunnel. */
  readonly HOOKBENCH_PUBLIC_URL?: string;
  /** Forward every stored event here as signed JSON (X-Signature with OUTBOUND_WEBHOOK_SECRET). */
  readonly OUTBOUND_WEBHOOK_URL?: string;
  readonly OUTBOUND_WEBHOOK_SECRET?: string;
  /** Post a one-line chat notification ({"text"}) for every stored event. */
  readonly CHAT_WEBHOOK_URL?: string;
  readonly [secret: string]: unknown;
}

export interface Delivery {
  readonly provider: ProviderName;
  readonly event: StoredEvent;
}

export class WebhookAgent extends Agent<WebhookEnv, WebhookState> {
  override initialState: WebhookState = { lastEventType: null, lastEventAt: null, stats: { total: 0, byType: {} } };

  override onStart(): void {
    this.ctx.storage.sql.exec(EVENTS_DDL);
    this.ctx.storage.sql.exec(EVENTS_INDEX_DDL);
    // The inspector's state timeline: the state before and after each stored event.
    this.ctx.storage.sql.exec(STATE_HISTORY_DDL);
  }

  override async onRequest(request: Request): Promise<Response> {
    if (request.method !== 'POST') return textResponse(request, 'Method not allowed', 405);
    let checked = checkedBefore(request);
    if (!checked) {
      // Not from this worker's router in this process (on Cloudflare, or another caller): checked here.
      const webhook = webhookRequest(request);
      if (!webhook) return textResponse(request, 'Not found', 404);
      const result = checkDelivery(request, webhook, new Uint8Array(await request.arrayBuffer()), this.env, this.name);
      if (!result.ok) return result.response;
      checked = result;
    }
    const event = this.toEvent(checked.provider, checked.request.headers, request.headers, checked.parsed, checked.body);
    const notes = { provider: checked.provider, entity: this.name, verification: verificationNote({ valid: true }), event: event.id, eventType: event.type };
    if (checked.request.route.queued) {
      await this.queue('processDelivery', { provider: checked.provider, event });
      return textResponse(request, 'Accepted', 202, notes);
    }
    const stored = this.store(event);
    return textResponse(request, 'OK', 200, { ...notes, stored });
  }

  private toEvent(provider: ProviderName, headers: HeaderMap, raw: Headers, { payload, stored }: ParsedPayload, body: Uint8Array): StoredEvent {
    const { shape } = schemeFor(provider);
    const type = locate(shape.eventType, headers, payload) ?? 'unknown';
    const action = locate(shape.action, headers, payload) ?? null;
    // Without a delivery id, identical bodies are the same delivery: the provider retried it.
    const id = locate(shape.deliveryId, headers, payload) ?? `sha256:${createHash('sha256').update(body).digest('hex')}`;
    const summary = describeEvent(provider, type, action ?? undefined, payload, raw);
    return { id, type, action, ...summary, payload: stored, timestamp: new Date().toISOString() };
  }

  /** The queued variant's deferred work, run by the queue after the 202. */
  processDelivery(delivery: Delivery): void {
    this.store(delivery.event);
  }

  /** Dedup, insert, retention, state and its history. Answers false for a duplicate delivery. */
  private store(event: StoredEvent): boolean {
    // One transaction: the event, the state it leads to and the timeline row all apply, or none does.
    const stored = this.ctx.storage.transactionSync(() => {
      // The dedup check and the insert in one statement: a delivery id already stored inserts nothing.
      const inserted = this.ctx.storage.sql.exec(EVENTS_INSERT, ...eventValues(event)).rowsWritten;
      if (inserted === 0) return false;
      noteEventStored(this.ctx, event);
      this.applyRetention();
      const before = this.state;
      const { stats } = before;
      const after: WebhookState = {
        lastEventType: event.type,
        lastEventAt: event.timestamp,
        stats: { total: stats.total + 1, byType: { ...stats.byType, [event.type]: (stats.byType[event.type] ?? 0) + 1 } },
      };
      this.ctx.storage.sql.exec(STATE_HISTORY_INSERT, event.id, event.type, event.title, event.timestamp, JSON.stringify(before), JSON.stringify(after));
      this.setState(after);
      return true;
    });
    if (!stored) return false;
    this.ctx.waitUntil(this.sendOutbound(event));
    return true;
  }

  /** Outbound webhooks after the response (docs/webhook-pattern.md, "Outbound webhooks"); failures are logged with their status. */
  private async sendOutbound(event: StoredEvent): Promise<void> {
    const { OUTBOUND_WEBHOOK_URL, OUTBOUND_WEBHOOK_SECRET, CHAT_WEBHOOK_URL } = this.env;
    const { payload: _payload, ...summary } = event;
    const sends: Promise<unknown>[] = [];
    if (OUTBOUND_WEBHOOK_URL) sends.push(sendJsonWebhook(OUTBOUND_WEBHOOK_URL, { entity: this.name, event: summary }, { secret: OUTBOUND_WEBHOOK_SECRET }));
    if (CHAT_WEBHOOK_URL) sends.push(notifyChat(CHAT_WEBHOOK_URL, `${this.name}: ${event.title}`));
    for (const result of await Promise.allSettled(sends)) {
      if (result.status === 'rejected') console.error(`[outbound] ${(result.reason as Error).message}`);
    }
  }

  private applyRetention(): void {
    const keep = Number(this.env.HOOKBENCH_RETENTION_COUNT ?? 100);
    const days = Number(this.env.HOOKBENCH_RETENTION_DAYS ?? 30);
    // Walks the timestamp index past the newest `keep` rows and deletes what is left.
    if (keep > 0) this.sql`DELETE FROM events WHERE rowid IN (SELECT rowid FROM events ORDER BY timestamp DESC LIMIT -1 OFFSET ${keep})`;
    // The timeline keeps as many rows as the events (the new one is added after this).
    if (keep > 0) this.ctx.storage.sql.exec(STATE_HISTORY_RETENTION, keep - 1);
    if (days > 0) this.sql`DELETE FROM events WHERE timestamp < ${new Date(Date.now() - days * 86_400_000).toISOString()}`;
  }

  @callable({ description: 'The newest events, newest first' })
  getEvents(limit = 20): StoredEvent[] {
    return this.sql<StoredEvent>`SELECT * FROM events ORDER BY timestamp DESC LIMIT ${limit}`;
  }

  @callable({ description: 'The newest events of one type, newest first' })
  getEventsByType(type: string, limit = 20): StoredEvent[] {
    return this.sql<StoredEvent>`SELECT * FROM events WHERE type = ${type} ORDER BY timestamp DESC LIMIT ${limit}`;
  }

  @callable({ description: 'One event by its id' })
  getEvent(id: string): StoredEvent | null {
    return this.sql<StoredEvent>`SELECT * FROM events WHERE id = ${id}`[0] ?? null;
  }
}
