/**
 * What the admin API answers about a worker's bindings (docs/admin-api.md, "Bindings"): the list
 * of bindings, KV keys and values, D1 tables, R2 objects, queue backlogs, workflow instances and
 * Durable Object alarms. Declared once for the serve process and the explorer's Bindings view,
 * each answer with its reader beside it (shape.ts).
 */
import { anything, bool, count, dictOf, listOf, oneOf, optional, shape, text } from './shape';
import { readTableSchema, type TableSchema } from './tableSchema';

/** The kinds of binding the explorer shows, in the order it shows them. */
export const BINDING_KINDS = ['kv', 'd1', 'r2', 'queue', 'workflow', 'durableObject'] as const;
export type BindingKind = (typeof BINDING_KINDS)[number];

/**
 * One binding of the worker. `name` is the `env` binding (for a queue: the queue's name, which
 * producers and the consumer share; for a workflow: its name in the config).
 */
export interface BindingSummary {
  readonly kind: BindingKind;
  readonly name: string;
  /** The data it reaches: the namespace, database or bucket id, the queue, the workflow or DO class. */
  readonly target: string;
}

export const readBindingSummary = shape<BindingSummary>({ kind: oneOf(...BINDING_KINDS), name: text, target: text });

/**
 * A binding's data changed (a KV key put or deleted, a D1 write, an R2 object, a queue's backlog):
 * what shows it may read it again. `target` is the data's id as in `BindingSummary`; undefined:
 * every binding of the kind (the queues share one backlog).
 */
export interface BindingChange {
  readonly kind: BindingKind;
  readonly target?: string;
}

/** Whether the binding `summary` shows the data `change` is about. */
export function changeReaches(change: BindingChange, summary: BindingSummary): boolean {
  return change.kind === summary.kind && (change.target === undefined || change.target === summary.target);
}

/** The longest key KV takes, in bytes (Workers KV's limit), and R2's. */
export const KV_MAX_KEY_BYTES = 512;
export const R2_MAX_KEY_BYTES = 1024;

/** At most this many entries per page of any listing (the explorer asks for 100). */
export const MAX_BINDING_PAGE = 1000;
/** A value or object shown in full up to this many bytes; longer ones are cut and marked. */
export const MAX_SHOWN_VALUE_BYTES = 64 * 1024;

export interface KvKey {
  readonly name: string;
  /** Seconds since the epoch, when the key expires. */
  readonly expiration?: number;
  readonly metadata?: unknown;
}

/** A page of keys; `cursor` is present when more follow (pass it back as `?cursor=`). */
export interface KvKeysPage {
  readonly keys: KvKey[];
  readonly cursor?: string;
}

export const readKvKeysPage = shape<KvKeysPage>({
  keys: listOf(shape<KvKey>({ name: text, expiration: optional(count), metadata: optional(anything) })),
  cursor: optional(text),
});

/** A value as text when it is UTF-8, else base64; at most MAX_SHOWN_VALUE_BYTES of it. */
export interface ShownBytes {
  readonly encoding: 'text' | 'base64';
  readonly value: string;
  /** Its whole size in bytes. */
  readonly size: number;
  /** Present when only the first MAX_SHOWN_VALUE_BYTES are shown. */
  readonly truncated?: true;
}

export interface KvValue extends ShownBytes {
  readonly key: string;
  readonly expiration?: number;
  readonly metadata?: unknown;
}

export const readKvValue = shape<KvValue>({
  key: text,
  encoding: oneOf('text', 'base64'),
  value: text,
  size: count,
  truncated: optional(oneOf(true)),
  expiration: optional(count),
  metadata: optional(anything),
});

export interface D1Tables {
  readonly tables: TableSchema[];
}

export const readD1Tables = shape<D1Tables>({ tables: listOf(readTableSchema) });

export interface R2ObjectInfo {
  readonly key: string;
  readonly size: number;
  readonly etag: string;
  /** ISO time of the upload. */
  readonly uploaded: string;
  readonly httpMetadata: Record<string, string>;
  readonly customMetadata: Record<string, string>;
}

export const readR2ObjectInfo = shape<R2ObjectInfo>({
  key: text,
  size: count,
  etag: text,
  uploaded: text,
  httpMetadata: dictOf(text),
  customMetadata: dictOf(text),
});

export interface R2ObjectsPage {
  readonly objects: R2ObjectInfo[];
  readonly cursor?: string;
}

export const readR2ObjectsPage = shape<R2ObjectsPage>({ objects: listOf(readR2ObjectInfo), cursor: optional(text) });

/** One message waiting in a queue. */
export interface QueueMessageInfo {
  readonly id: string;
  /** Deliveries so far + 1 (the next delivery's `attempts`); retries = attempts - 1. */
  readonly attempts: number;
  readonly retries: number;
  /** ISO times: when it was sent, and when it may next be delivered. */
  readonly sentAt: string;
  readonly visibleAt: string;
  readonly contentType: string;
  readonly size: number;
}

const readQueueMessageInfo = shape<QueueMessageInfo>({
  id: text,
  attempts: count,
  retries: count,
  sentAt: text,
  visibleAt: text,
  contentType: text,
  size: count,
});

export interface QueueInfo {
  readonly queue: string;
  /** Every message waiting, delayed and in-flight ones included. */
  readonly backlog: number;
  /** Waiting out a delay or a retry delay. */
  readonly delayed: number;
  /** In the batch the worker's `queue()` is handling now. */
  readonly inFlight: number;
  /** Messages that have been retried at least once. */
  readonly retried: number;
  /** The consumer's dead-letter queue, and how many messages wait there now. */
  readonly deadLetterQueue?: string;
  readonly deadLettered: number;
  /** Whether this worker consumes the queue (else its messages only wait). */
  readonly consumed: boolean;
  /** A page of the messages, oldest first. */
  readonly messages: QueueMessageInfo[];
  readonly cursor?: string;
}

export const readQueueInfo = shape<QueueInfo>({
  queue: text,
  backlog: count,
  delayed: count,
  inFlight: count,
  retried: count,
  deadLetterQueue: optional(text),
  deadLettered: count,
  consumed: bool,
  messages: listOf(readQueueMessageInfo),
  cursor: optional(text),
});

export interface WorkflowStepInfo {
  /** `do`, `sleep` or `waitForEvent`. */
  readonly kind: string;
  readonly name: string;
  /** False for a step that failed for good. */
  readonly ok: boolean;
}

export interface WorkflowInstanceInfo {
  readonly id: string;
  readonly status: string;
  readonly error?: { readonly name: string; readonly message: string };
  readonly steps: WorkflowStepInfo[];
}

const readWorkflowInstanceInfo = shape<WorkflowInstanceInfo>({
  id: text,
  status: text,
  error: optional(shape<{ readonly name: string; readonly message: string }>({ name: text, message: text })),
  steps: listOf(shape<WorkflowStepInfo>({ kind: text, name: text, ok: bool })),
});

export interface WorkflowInstancesPage {
  readonly instances: WorkflowInstanceInfo[];
  readonly cursor?: string;
}

export const readWorkflowInstancesPage = shape<WorkflowInstancesPage>({ instances: listOf(readWorkflowInstanceInfo), cursor: optional(text) });

export interface PendingAlarm {
  readonly name: string;
  /** ISO time the alarm is set for. */
  readonly time: string;
}

export interface AlarmsPage {
  readonly alarms: PendingAlarm[];
  readonly cursor?: string;
}

export const readAlarmsPage = shape<AlarmsPage>({ alarms: listOf(shape<PendingAlarm>({ name: text, time: text })), cursor: optional(text) });
