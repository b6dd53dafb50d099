/**
 * A one-line title, a description, a link and an actor for the providers' common events, so the
 * explorer reads like a feed rather than a list of ids.
 */
import { atPath } from '../../core/signing';
import type { ProviderName } from '../../core/signing';
import { stripeEventPhrase } from '../../core/payloads/stripe/events';

export interface EventSummary {
  readonly title: string;
  readonly description: string | null;
  readonly url: string | null;
  readonly actor: string | null;
}

const str = (payload: unknown, path: string): string | undefined => {
  const v = atPath(payload, path);
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
};

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function money(amount: unknown, currency: unknown): string {
  if (typeof amount !== 'number') return '';
  const code = typeof currency === 'string' ? currency.toUpperCase() : '';
  return ` ${(amount / 100).toFixed(2)} ${code}`.trimEnd();
}

function github(type: string, action: string | undefined, p: unknown): EventSummary {
  const repo = str(p, 'repository.full_name') ?? str(p, 'organization.login') ?? '';
  const actor = str(p, 'sender.login') ?? str(p, 'pusher.name') ?? null;
  const number = str(p, 'pull_request.number') ?? str(p, 'issue.number');
  switch (type) {
    case 'push': {
      const commits = (atPath(p, 'commits') as unknown[] | undefined)?.length ?? 0;
      const ref = (str(p, 'ref') ?? '').replace(/^refs\/heads\//, '');
      return {
        title: `${str(p, 'pusher.name') ?? actor ?? 'someone'} pushed ${plural(commits, 'commit')} to ${ref}`,
        description: str(p, 'head_commit.message') ?? null,
        url: str(p, 'compare') ?? null,
        actor,
      };
    }
    case 'pull_request':
      return {
        title: `PR #${number} ${action ?? ''}: ${str(p, 'pull_request.title') ?? ''}`.replace(/ :/, ':'),
        description: str(p, 'pull_request.body') ?? null,
        url: str(p, 'pull_request.html_url') ?? null,
        actor,
      };
    case 'issues':
      return {
        title: `Issue #${number} ${action ?? ''}: ${str(p, 'issue.title') ?? ''}`.replace(/ :/, ':'),
        description: str(p, 'issue.body') ?? null,
        url: str(p, 'issue.html_url') ?? null,
        actor,
      };
    case 'issue_comment':
      return {
        title: `Comment on #${number}: ${str(p, 'issue.title') ?? ''}`,
        description: str(p, 'comment.body') ?? null,
        url: str(p, 'comment.html_url') ?? null,
        actor,
      };
    case 'release':
      return {
        title: `Release ${str(p, 'release.tag_name') ?? ''} ${action ?? ''}`.trim(),
        description: str(p, 'release.name') ?? null,
        url: str(p, 'release.html_url') ?? null,
        actor,
      };
    case 'star':
      return {
        title: `${actor ?? 'someone'} ${action === 'deleted' ? 'unstarred' : 'starred'} ${repo}`,
        description: null,
        url: str(p, 'repository.html_url') ?? null,
        actor,
      };
    case 'workflow_run':
      return {
        title: `Workflow ${str(p, 'workflow_run.name') ?? ''} ${action ?? ''}${str(p, 'workflow_run.conclusion') ? ` (${str(p, 'workflow_run.conclusion')})` : ''}`,
        description: str(p, 'workflow_run.head_branch') ?? null,
        url: str(p, 'workflow_run.html_url') ?? null,
        actor,
      };
    case 'ping':
      return { title: `Ping: ${str(p, 'zen') ?? 'webhook configured'}`, description: null, url: str(p, 'hook.config.url') ?? null, actor };
    default:
      return {
        title: `${type}${action ? ` ${action}` : ''}${repo ? ` on ${repo}` : ''}`,
        description: null,
        url: str(p, 'repository.html_url') ?? null,
        actor,
      };
  }
}

function stripe(type: string, p: unknown): EventSummary {
  const object = atPath(p, 'data.object') as Record<string, unknown> | undefined;
  const id = str(p, 'data.object.id') ?? '';
  const amount = money(object?.['amount_paid'] ?? object?.['amount'] ?? object?.['amount_total'], object?.['currency']);
  const live = atPath(p, 'livemode') === true;
  const eventId = str(p, 'id');
  return {
    // The explorer shows the type beside the title: the title says what happened instead.
    title: `${stripeEventPhrase(type)}${id ? ` · ${id}` : ''}${amount ? ` ·${amount}` : ''}`,
    description: str(p, 'data.object.description') ?? null,
    url: eventId ? `https://dashboard.stripe.com/${live ? '' : 'test/'}events/${eventId}` : null,
    actor: str(p, 'data.object.customer_email') ?? str(p, 'data.object.email') ?? str(p, 'data.object.customer') ?? null,
  };
}

function twilio(type: string, p: unknown): EventSummary {
  const from = str(p, 'From');
  const to = str(p, 'To');
  const body = str(p, 'Body');
  const kind = str(p, 'CallSid') && !str(p, 'MessageSid') ? 'Call' : 'SMS';
  return { title: `${kind} ${type}${from ? ` from ${from}` : ''}${to ? ` to ${to}` : ''}`, description: body ?? null, url: null, actor: from ?? null };
}

function slack(type: string, p: unknown): EventSummary {
  const channel = str(p, 'event.channel') ?? str(p, 'channel_id') ?? str(p, 'channel.id');
  const text = str(p, 'event.text') ?? str(p, 'text') ?? null;
  const command = str(p, 'command');
  return {
    title: command ? `${command} ${text ?? ''}`.trim() : `${type}${channel ? ` in ${channel}` : ''}`,
    description: command ? null : text,
    url: null,
    actor: str(p, 'event.user') ?? str(p, 'user_id') ?? str(p, 'user.id') ?? null,
  };
}

function shopify(type: string, p: unknown, shop: string | undefined): EventSummary {
  const name = str(p, 'name') ?? (str(p, 'order_number') ? `#${str(p, 'order_number')}` : (str(p, 'title') ?? str(p, 'id')));
  const total = str(p, 'total_price');
  const currency = str(p, 'currency');
  const adminPath = type.startsWith('orders/') ? 'orders' : type.startsWith('products/') ? 'products' : type.startsWith('customers/') ? 'customers' : undefined;
  return {
    title: `${type}${name ? ` · ${name}` : ''}${total ? ` · ${total}${currency ? ` ${currency}` : ''}` : ''}`,
    description: null,
    url: shop && adminPath && str(p, 'id') ? `https://${shop}/admin/${adminPath}/${str(p, 'id')}` : null,
    actor: str(p, 'email') ?? str(p, 'customer.email') ?? null,
  };
}

export function describeEvent(provider: ProviderName, type: string, action: string | undefined, payload: unknown, headers: Headers): EventSummary {
  switch (provider) {
    case 'github':
      return github(type, action, payload);
    case 'stripe':
      return stripe(type, payload);
    case 'twilio':
      return twilio(type, payload);
    case 'slack':
      return slack(type, payload);
    case 'shopify':
      return shopify(type, payload, headers.get('x-shopify-shop-domain') ?? headers.get('shopify-shop-domain') ?? undefined);
    default:
      return { title: `${type}${action ? ` ${action}` : ''}`, description: null, url: null, actor: null };
  }
}
