// The benchmarks' GitHub push: the seed's 3.3 KB delivery, one repository per entity, signed with
// the secret every bench server is started with.
import { schemeFor } from '../src/core/signing';

/** The GitHub webhook secret the bench's servers verify with. */
export const BENCH_SECRET = 'bench-github-secret';

/** A push delivery of about 3.3 KB, like the seed's benchmark. */
export function pushBody(entity: number, n: number): string {
  const repo = `acme/repo-${entity}`;
  const payload = {
    ref: 'refs/heads/main',
    before: '6113728f27ae82c7b1a177c8d03f9e96e0adf246',
    after: '0000000000000000000000000000000000000000'.slice(0, 40 - String(n).length) + n,
    repository: {
      id: 1296269 + entity,
      name: `repo-${entity}`,
      full_name: repo,
      private: false,
      html_url: `https://github.com/${repo}`,
      owner: { login: 'acme', id: 1, type: 'Organization' },
      description: 'A repository',
      default_branch: 'main',
    },
    pusher: { name: 'octocat', email: 'octocat@github.com' },
    sender: { login: 'octocat', id: 583231, type: 'User' },
    compare: `https://github.com/${repo}/compare/6113728f27ae...${n}`,
    commits: [
      {
        id: String(n),
        message: 'Update README.md',
        timestamp: '2026-11-22T03:00:00Z',
        author: { name: 'Octo Cat', email: 'octocat@github.com', username: 'octocat' },
        added: [],
        removed: [],
        modified: ['README.md'],
      },
    ],
    head_commit: { id: String(n), message: 'Update README.md', timestamp: '2026-11-22T03:00:00Z' },
  };
  const text = JSON.stringify(payload);
  return JSON.stringify({ ...payload, padding: 'x'.repeat(Math.max(0, 3300 - text.length - 14)) });
}

/**
 * The n-th signed push over `entities` repositories (to `entity`, by default the n-th in turn); `tag` keeps delivery ids unique across the
 * processes that send them (a repeated id is a duplicate, which stores nothing).
 */
export function signedPush(n: number, tag: string, entities = 100, entity = n % entities): { body: string; headers: Record<string, string> } {
  const body = pushBody(entity, n);
  const { headers } = schemeFor('github').sign({ secret: BENCH_SECRET, body: Buffer.from(body) });
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'push',
      'x-github-delivery': `bench-${tag}-${n}`,
      'x-hub-signature-256': headers['X-Hub-Signature-256']!,
    },
  };
}
