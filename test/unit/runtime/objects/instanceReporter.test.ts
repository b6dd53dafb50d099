// The instance events of one instance on the platform's sink, as the live feed reads them: created,
// woken and evicted with the instance's summary (no connections while asleep), a state set, and an
// event the built-in worker notes through its ctx (its payload left behind).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { InstanceEvent } from '../../../../src/core/contract/instances';
import { noteEventStored, provideInstanceNotices } from '../../../../src/core/contract/notes';
import { Emitter } from '../../../../src/core/events';
import { InstanceReporter } from '../../../../src/runtime/objects/instanceReporter';

function reporter(): { reporter: InstanceReporter; events: InstanceEvent[] } {
  const sink = new Emitter<InstanceEvent>();
  const events: InstanceEvent[] = [];
  sink.event((event) => events.push(event));
  return { reporter: new InstanceReporter(sink, 'WEBHOOK_AGENT', 'WebhookAgent', 'acme/repo'), events };
}

describe('instance reporter', () => {
  it('tells the sink an instance was created, woken and evicted, with its summary', () => {
    const { reporter: r, events } = reporter();
    r.created(2);
    r.woken(2);
    r.evicted();
    const summary = (awake: boolean, connections: number) => ({
      namespace: 'WEBHOOK_AGENT',
      agent: 'webhook-agent',
      className: 'WebhookAgent',
      name: 'acme/repo',
      awake,
      connections,
    });
    assert.deepEqual(events, [
      { kind: 'created', namespace: 'WEBHOOK_AGENT', name: 'acme/repo', instance: summary(true, 2) },
      { kind: 'woken', namespace: 'WEBHOOK_AGENT', name: 'acme/repo', instance: summary(true, 2) },
      { kind: 'evicted', namespace: 'WEBHOOK_AGENT', name: 'acme/repo', instance: summary(false, 0) },
    ]);
    assert.equal(r.summary(false, 3).connections, 0, 'asleep, it holds no connection');
  });

  it('tells the sink a state set and an event the agent noted through its ctx, without the payload', () => {
    const { reporter: r, events } = reporter();
    r.stateSet({ count: 1 });
    const ctx = {};
    provideInstanceNotices(ctx, r);
    const row = { id: 'e1', type: 'push', action: null, title: 'Pushed', timestamp: 1, payload: '{"big":true}' };
    noteEventStored(ctx, row as never);
    assert.deepEqual(events, [
      { kind: 'state', namespace: 'WEBHOOK_AGENT', name: 'acme/repo', state: { count: 1 } },
      { kind: 'event', namespace: 'WEBHOOK_AGENT', name: 'acme/repo', event: { id: 'e1', type: 'push', action: null, title: 'Pushed', timestamp: 1 } },
    ]);
  });
});
