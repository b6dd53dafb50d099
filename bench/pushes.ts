// The benchmarks' GitHub push: the seed's 3.3 KB delivery, one repository per entity.

/** A push delivery of about 3.3 KB, like the seed's benchmark. */
export function pushBody(entity: number, n: number): string {
  const repo = `acme/repo-${entity}`;
  const payload = {
    ref: 'refs/heads/main',
    before: '6113728f27ae82c7b1a177c8d03f9e96e0adf246',
    after: '0000000000000000000000000000000000000000'.slice(0, 40 - String(n).length) + n,
    repository: { id: 1296269 + entity, name: `repo-${entity}`, full_name: repo, private: false, html_url: `https://github.com/${repo}`, owner: { login: 'acme', id: 1, type: 'Organization' }, description: 'A repository', default_branch: 'main' },
    pusher: { name: 'octocat', email: 'octocat@github.com' },
    sender: { login: 'octocat', id: 583231, type: 'User' },
    compare: `https://github.com/${repo}/compare/6113728f27ae...${n}`,
    commits: [{ id: String(n), message: 'Update README.md', timestamp: '2026-11-22T03:00:00Z', author: { name: 'Octo Cat', email: 'octocat@github.com', username: 'octocat' }, added: [], removed: [], modified: ['README.md'] }],
    head_commit: { id: String(n), message: 'Update README.md', timestamp: '2026-11-22T03:00:00Z' },
  };
  const text = JSON.stringify(payload);
  return JSON.stringify({ ...payload, padding: 'x'.repeat(Math.max(0, 3300 - text.length - 14)) });
}
