/**
 * The webhook-bin area: an ES module worker as users write them. Top-level await sets up a
 * signing key before the first request; `import page from "./index.html"` and a .txt template are
 * Text, a .bin file is Data (an ArrayBuffer), and a `rules` entry makes Markdown Text too.
 */
import type { Area } from '../../step';

const text = { headers: ['content-type'] } as const;

export const area: Area = {
  name: 'webhook-bin',
  folder: 'webhook-bin',
  steps: [
    { name: 'the page is the imported HTML', path: '/', compare: text },
    { name: 'the help page is Markdown imported by a rules entry', path: '/help', compare: text },
    { name: 'the .bin import is an ArrayBuffer of the file bytes', path: '/magic', compare: { body: 'json' } },
    {
      name: 'a delivery gets a receipt from the .txt template, signed with the key set up by top-level await',
      method: 'POST',
      path: '/bin/stripe',
      headers: { 'content-type': 'application/json' },
      body: '{"id":"evt_1","type":"charge.succeeded"}',
      compare: { headers: ['content-type', 'x-bin-magic'] },
    },
    { name: 'a second delivery', method: 'POST', path: '/bin/stripe', body: 'plain text body', compare: { headers: ['content-type', 'x-bin-magic'] } },
    { name: 'the bin lists both', path: '/bin/stripe', compare: { body: 'json' } },
    { name: 'an unknown path', path: '/nothing', compare: text },
  ],
};
