/**
 * Hookbench's built-in webhook worker, written against the `agents` API exactly as a user would
 * write it for Cloudflare (docs/webhook-pattern.md): the router finds the entity, each entity has its own
 * WebhookAgent. Binding: WEBHOOK_AGENT → WebhookAgent, so agents routes are /agents/webhook-agent/<name>.
 */
import { getAgentByName, routeAgentRequest } from 'agents';
import { locate, normalizeHeaders, schemeFor } from '../../core/signing';
import { checkDelivery, rememberCheck } from './check';
import { textResponse } from './responses';
import { sanitizeEntity, webhookRoute } from './routes';
import type { WebhookEnv } from './webhookAgent';

export { WebhookAgent } from './webhookAgent';

const text = (body: string, status: number, provider?: string) => textResponse(body, status, provider ? { provider } : {});

export default {
  async fetch(request: Request, env: WebhookEnv): Promise<Response> {
    const url = new URL(request.url);
    const route = webhookRoute(url, request.headers);
    if (route) {
      if (request.method !== 'POST') return text('Method not allowed', 405);
      // Read a clone: the agent reads the original body again, byte for byte (docs/webhook-pattern.md, routing rule 4).
      const body = new Uint8Array(await request.clone().arrayBuffer());
      // Verified and parsed before any agent exists: a rejected request creates no instance.
      const checked = checkDelivery(route, request, body, env, route.entity);
      if (!checked.ok) return checked.response;
      rememberCheck(request, checked);
      let entity = route.entity;
      if (entity === undefined) {
        const { shape } = schemeFor(checked.provider);
        const found = locate(shape.entity, normalizeHeaders(request.headers.entries()), checked.parsed.payload);
        if (found === undefined) return text(`Missing ${shape.entityField}`, 400, checked.provider);
        entity = sanitizeEntity(found, checked.provider);
      }
      const agent = await getAgentByName(env.WEBHOOK_AGENT as never, entity);
      return agent.fetch(request);
    }
    return (await routeAgentRequest(request, env)) ?? text('Not found', 404);
  },
};
