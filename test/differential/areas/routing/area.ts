/** The routing area: routeAgentRequest's options against the real SDK on workerd. */
import type { Area } from '../../step';

export const area: Area = {
  name: 'routing',
  folder: 'routing',
  steps: [
    { name: 'a plain route of the worker', path: '/plain/x' },
    { name: 'an agent request reaches onRequest with its subpath and query', path: '/agents/echo-agent/one/sub/path?x=1', compare: { body: 'json' } },
    { name: 'an unknown namespace is 400 Invalid request', path: '/agents/nobody/one' },
    { name: 'a missing name falls through to the worker', path: '/agents/echo-agent' },
  ],
};
