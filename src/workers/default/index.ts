/**
 * Hookbench's built-in webhook worker, written against the `agents` API exactly as a user would
 * write it for Cloudflare (seed §4): the router finds the entity, each entity has its own
 * WebhookAgent. Binding: WEBHOOK_AGENT → WebhookAgent, so agents routes are /agents/webhook-agent/<name>.
 */
import { getAgentByName, routeAgentRequest } from 'agents';
import { locate, normalizeHeaders, schemeFor } from '../../core/signing';
import { parsePayload } from './payload';
import { textResponse } from './responses';
import { sanitizeEntity, webhookRoute } from './routes';
import type { WebhookEnv } from './webhookAgent';

export { WebhookAgent } from './webhookAgent';

const text = (body: string, status: number, provider?: string) => textResponse(body, status, provider ? { 'x-hookbench-provider': provider } : {});

export default {
  async fetch(request: Request, env: WebhookEnv): Promise<Response> {
    const url = new URL(request.url);
    const route = webhookRoute(url, request.headers);
    if (route) {
      if (request.method !== 'POST') return text('Method not allowed', 405);
      let entity = route.entity;
      if (entity === undefined && route.provider) {
        const { shape } = schemeFor(route.provider);
        // Read a clone: the agent reads the original body again, byte for byte (seed §4.2 rule 4).
        const body = new Uint8Array(await request.clone().arrayBuffer());
        let payload: unknown;
        try {
          payload = parsePayload(body, request.headers.get('content-type')).payload;
        } catch {
          return text('Invalid', 400, route.provider);
        }
        const found = locate(shape.entity, normalizeHeaders(request.headers.entries()), payload);
        if (found === undefined) return text(`Missing ${shape.entityField}`, 400, route.provider);
        entity = sanitizeEntity(found);
      }
      const agent = await getAgentByName(env.WEBHOOK_AGENT as never, entity!);
      return agent.fetch(request);
    }
    return (await routeAgentRequest(request, env)) ?? text('Not found', 404);
  },
};
