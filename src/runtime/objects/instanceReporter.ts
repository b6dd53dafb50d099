/**
 * What happens to one instance, told to the platform's one instance-event sink
 * (`platform.instanceEvents`, read by the admin API's live feed): created (its first wake), woken,
 * evicted, a state set, an event stored. Each is fired where it happens, in the host's pieces.
 */
import type { Emitter } from '../../core/events';
import { camelCaseToKebabCase } from '../../core/contract/agentsProtocol';
import type { EventRow, InstanceEvent, InstanceSummary } from '../../core/contract/instances';
import type { InstanceNotices } from '../../core/contract/notes';

export class InstanceReporter implements InstanceNotices {
  constructor(
    private readonly sink: Emitter<InstanceEvent>,
    /** The binding name (`WEBHOOK_AGENT`): the event's namespace. */
    private readonly binding: string,
    private readonly className: string,
    private readonly name: string,
  ) {}

  /** The instance as the live feed shows it; asleep, it holds no connection. */
  summary(awake: boolean, connections: number): InstanceSummary {
    return {
      namespace: this.binding,
      agent: camelCaseToKebabCase(this.binding),
      className: this.className,
      name: this.name,
      awake,
      connections: awake ? connections : 0,
    };
  }

  /** Its first wake: it has data on disk from now on. */
  created(connections: number): void {
    this.sink.fire({ kind: 'created', namespace: this.binding, name: this.name, instance: this.summary(true, connections) });
  }

  woken(connections: number): void {
    this.sink.fire({ kind: 'woken', namespace: this.binding, name: this.name, instance: this.summary(true, connections) });
  }

  evicted(): void {
    this.sink.fire({ kind: 'evicted', namespace: this.binding, name: this.name, instance: this.summary(false, 0) });
  }

  /** The agent set its state (persisted and broadcast to its clients). */
  stateSet(state: unknown): void {
    this.sink.fire({ kind: 'state', namespace: this.binding, name: this.name, state });
  }

  /** The agent stored an event row (the built-in worker's notice, `noteEventStored`). */
  eventStored(event: EventRow): void {
    this.sink.fire({ kind: 'event', namespace: this.binding, name: this.name, event });
  }
}
