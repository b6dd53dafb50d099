// POST /send {calls: [{method, args}]}: calls env.WORK.send/sendBatch (or env.SLOW with "slow":
// true) and answers each call's result or error. Bodies are JSON with tags for what JSON cannot
// say: {$bytes: "text"} (an ArrayBuffer), {$u8: "text"} (a Uint8Array), {$date: ms}, {$map: [[k, v]]}, {$repeat: [prefix, s, n]}.
// queue() records every message it sees in KV under seen:<tag>:<label>:<attempt>:<queue> and acts
// as the first attempt's body says: act (per message: "ack", "retry", "retry:<s>" in order),
// pre/post (batch: "ackAll", "retryAll", "throw" before/after the messages). GET /seen?t=<tag>
// reads the records back, sorted.
interface Env {
  WORK: Queue;
  SLOW: Queue;
  LOG: KVNamespace;
}

interface Tagged {
  t?: string;
  n?: number;
  act?: string[];
  pre?: string[];
  post?: string[];
  always?: string;
}

function revive(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(revive);
  if (!value || typeof value !== 'object') return value;
  const tagged = value as Record<string, unknown>;
  if ('$bytes' in tagged) return new TextEncoder().encode(tagged['$bytes'] as string).buffer;
  if ('$u8' in tagged) return new TextEncoder().encode(tagged['$u8'] as string);
  if ('$date' in tagged) return new Date(tagged['$date'] as number);
  if ('$map' in tagged) return new Map(tagged['$map'] as [unknown, unknown][]);
  if ('$repeat' in tagged) {
    const [prefix, s, n] = tagged['$repeat'] as [string, string, number];
    return prefix + s.repeat(n);
  }
  return Object.fromEntries(Object.entries(tagged).map(([k, v]) => [k, revive(v)]));
}

/** What a body is, in JSON: its type and its value. */
function describe(body: unknown): unknown {
  if (typeof body === 'string') return { text: body.slice(0, 40), length: body.length };
  if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) return { bytes: new TextDecoder().decode(body), kind: Object.prototype.toString.call(body) };
  if (body instanceof Date) return { date: body.getTime() };
  if (body instanceof Map) return { map: [...body] };
  return { value: body };
}

/** The scenario a message belongs to and its label: "t:label" in text and bytes, {t, n} otherwise. */
function tagOf(body: unknown): { t: string; label: string; rules: Tagged } {
  const text = typeof body === 'string' ? body : body instanceof ArrayBuffer || ArrayBuffer.isView(body) ? new TextDecoder().decode(body) : undefined;
  if (text !== undefined) return { t: text.split(':')[0]!, label: (text.split(':')[1] ?? '').slice(0, 20), rules: {} };
  if (body instanceof Map) return { t: String(body.get('t')), label: String(body.get('n')), rules: {} };
  const rules = (body ?? {}) as Tagged;
  return { t: String(rules.t), label: String(rules.n), rules };
}

function batchOp(batch: MessageBatch, op: string): void {
  if (op === 'ackAll') batch.ackAll();
  else if (op === 'retryAll') batch.retryAll();
  else if (op === 'throw') throw new Error('the consumer failed');
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === '/seen') {
      const listed = await env.LOG.list({ prefix: `seen:${url.searchParams.get('t')}:` });
      const records = await Promise.all(listed.keys.map(async ({ name }) => [name, JSON.parse((await env.LOG.get(name)) ?? 'null')]));
      return Response.json(records);
    }
    const { calls, slow } = (await request.json()) as { calls: { method: 'send' | 'sendBatch'; args: unknown[] }[]; slow?: boolean };
    const queue = slow ? env.SLOW : env.WORK;
    const results: unknown[] = [];
    for (const call of calls) {
      try {
        const args = revive(call.args) as unknown[];
        const result = call.method === 'send' ? await queue.send(args[0], args[1] as QueueSendOptions) : await queue.sendBatch(args[0] as MessageSendRequest[], args[1] as QueueSendBatchOptions);
        results.push({ result: result === undefined ? 'undefined' : result });
      } catch (error) {
        results.push({ error: (error as Error).message, name: (error as Error).name });
      }
    }
    return Response.json(results);
  },

  async queue(batch: MessageBatch, env: Env): Promise<void> {
    for (const message of batch.messages) {
      const { t, label } = tagOf(message.body);
      // Which messages of the same scenario came in this batch (others may share it, as timing has it).
      const together = batch.messages.map((m) => tagOf(m.body)).filter((other) => other.t === t).map((other) => other.label).sort();
      const record = { queue: batch.queue, attempts: message.attempts, body: describe(message.body), together, id: typeof message.id, timestamp: message.timestamp instanceof Date };
      await env.LOG.put(`seen:${t}:${label}:${message.attempts}:${batch.queue}`, JSON.stringify(record));
    }
    if (batch.queue !== 'diff-work') return;
    const first = tagOf(batch.messages[0]?.body).rules;
    const firstAttempt = batch.messages[0]?.attempts === 1;
    if (firstAttempt) for (const op of first.pre ?? []) batchOp(batch, op);
    for (const message of batch.messages) {
      const { rules } = tagOf(message.body);
      const ops = rules.always ? [rules.always] : message.attempts === 1 ? (rules.act ?? []) : [];
      for (const op of ops) {
        if (op === 'ack') message.ack();
        else if (op.startsWith('retry')) message.retry(op.includes(':') ? { delaySeconds: Number(op.split(':')[1]) } : undefined);
      }
    }
    if (firstAttempt) for (const op of first.post ?? []) batchOp(batch, op);
  },
};
