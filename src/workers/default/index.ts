/**
 * Hookbench's built-in webhook worker, written against the `agents` API exactly as a user would
 * write it for Cloudflare (docs/webhook-pattern.md): the router finds the entity, each entity has its own
 * WebhookAgent. Binding: WEBHOOK_AGENT → WebhookAgent, so agents routes are /agents/webhook-agent/<name>.
 */
import { getAgentByName, routeAgentRequest } from 'agents';
import { locate, schemeFor } from '../../core/signing';
import { checkDelivery, rememberCheck, webhookRequest } from './check';
import { textResponse } from './responses';
import { sanitizeEntity } from './routes';
import type { WebhookEnv } from './webhookAgent';

export { WebhookAgent } from './webhookAgent';

export default {
  async fetch(request: Request, env: WebhookEnv): Promise<Response> {
    const webhook = webhookRequest(request);
    if (webhook) {
      const { route } = webhook;
      if (request.method !== 'POST') return textResponse(request, 'Method not allowed', 405);
      // Read a clone: the agent reads the original body again, byte for byte (docs/webhook-pattern.md, routing rule 4).
      const body = new Uint8Array(await request.clone().arrayBuffer());
      // Verified and parsed before any agent exists: a rejected request creates no instance.
      const checked = checkDelivery(request, webhook, body, env, route.entity);
      if (!checked.ok) return checked.response;
      rememberCheck(request, checked);
      let entity = route.entity;
      if (entity === undefined) {
        const { shape } = schemeFor(checked.provider);
        const found = locate(shape.entity, webhook.headers, checked.parsed.payload);
        if (found === undefined) return textResponse(request, `Missing ${shape.entityField}`, 400, { provider: checked.provider });
        entity = sanitizeEntity(found, checked.provider);
      }
      const agent = await getAgentByName(env.WEBHOOK_AGENT as never, entity);
      return agent.fetch(request);
    }
    return (await routeAgentRequest(request, env)) ?? textResponse(request, 'Not found', 404);
  },
};
