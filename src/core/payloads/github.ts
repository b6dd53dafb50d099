/**
 * GitHub deliveries from GitHub's own example payloads (@octokit/webhooks-examples), one per
 * event, and one per action of the common events (the example with its `action` set).
 */
import { githubEvents, githubExample } from './githubExamples';
import { json, type Template, type TemplateContext } from './types';

/** Events whose actions get a template each. */
const WITH_ACTIONS = new Set(['pull_request', 'issues', 'issue_comment', 'release', 'workflow_run', 'check_run', 'discussion', 'pull_request_review', 'star']);

function withEntity(example: Record<string, unknown>, entity: string | undefined): Record<string, unknown> {
  if (!entity || typeof example['repository'] !== 'object' || example['repository'] === null) return example;
  const [owner, name = owner] = entity.split('/');
  const repository = example['repository'] as Record<string, unknown>;
  return {
    ...example,
    repository: {
      ...repository,
      full_name: entity.includes('/') ? entity : `${String((repository['owner'] as { login?: string } | undefined)?.login ?? 'octo')}/${entity}`,
      name,
      html_url: `https://github.com/${entity}`,
    },
  };
}

function template(event: string, action: string | undefined): Template {
  return {
    provider: 'github',
    event: action ? `${event}.${action}` : event,
    description: action ? `${event} (${action}), from GitHub's example payloads` : `${event}, from GitHub's example payloads`,
    build({ entity, id }: TemplateContext) {
      const example = githubExample(event);
      const payload = withEntity(action ? { ...example, action } : example, entity);
      return json(payload, {
        'user-agent': 'GitHub-Hookshot/0a1b2c3',
        'x-github-event': event,
        'x-github-delivery': id,
        'x-github-hook-id': '123456789',
        'x-github-hook-installation-target-type': 'repository',
        'x-github-hook-installation-target-id': '1296269',
      });
    },
  };
}

export function githubTemplates(): Template[] {
  const out: Template[] = [];
  for (const [event, actions] of Object.entries(githubEvents).sort(([a], [b]) => a.localeCompare(b))) {
    out.push(template(event, undefined));
    if (WITH_ACTIONS.has(event)) for (const action of actions) out.push(template(event, action));
  }
  return out;
}
