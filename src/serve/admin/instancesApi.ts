/**
 * The admin API's `/__hookbench/instances…` routes (docs/admin-api.md, "Instances"): the agent
 * instances the runtime hosts, described, queried on a copy, written to by the instance itself,
 * cleared and deleted. Asking about an instance never creates one.
 */
import type { InstanceDetails, InstanceEvent, InstanceSummary } from '../../core/contract/instances';
import { RouteError } from '../../core/contract/adminRoute';
import { camelCaseToKebabCase } from '../../core/contract/agentsProtocol';
import type { Emitter } from '../../core/events';
import type { InstanceHost } from '../../runtime/objects/instanceHost';
import type { DurableObjectNamespace } from '../../runtime/objects/namespace';
import type { WorkerRuntime } from '../../runtime/worker/workerRuntime';
import type { QueryRunner } from './adminQuery';
import type { AdminHandlers } from './adminRouter';
import { executeRefusal, readOnlyRefusal } from './readOnlySql';
import { answerRows, refuseStatement } from './sqlRoutes';
import { AGENT_STATE_ROW_ID, AGENT_STATE_SELECT, AGENT_STATE_TABLE, EVENTS_CLEAR, EVENTS_TABLE, stateFromText } from '../../core/contract/tables';

export type InstanceRoutes = 'instances' | 'details' | 'instance' | 'deleteInstance' | 'clearEvents' | 'query' | 'execute';

export interface InstancesDeps {
  readonly runtime: () => Promise<WorkerRuntime>;
  readonly instanceEvents: Emitter<InstanceEvent>;
  readonly queries: QueryRunner;
  /** Rows a console write answers at most, as a query does. */
  readonly maxRows: number;
}

export class InstancesApi {
  constructor(private readonly deps: InstancesDeps) {}

  readonly handlers: Pick<AdminHandlers, InstanceRoutes> = {
    instances: async () => {
      const runtime = await this.deps.runtime();
      const instances = runtime.namespaces.flatMap((namespace) =>
        namespace.instanceNames().map((name): InstanceSummary => {
          const host = namespace.existingHost(name);
          return {
            namespace: namespace.binding,
            agent: camelCaseToKebabCase(namespace.binding),
            className: namespace.className,
            name,
            awake: host?.isAwake ?? false,
            connections: host?.connectionCount ?? 0,
          };
        }),
      );
      return { instances };
    },
    // Many instances described in one request (the explorer's page), one at a time: each wakes
    // its instance, and a page must not wake a hundred at once.
    details: async ({ body: refs }) => {
      const runtime = await this.deps.runtime();
      const instances: InstanceDetails[] = [];
      for (const { namespace: wanted, name } of refs) {
        const namespace = runtime.namespaces.find((n) => n.binding === wanted || camelCaseToKebabCase(n.binding) === wanted);
        if (!namespace || !namespace.has(name)) continue;
        instances.push(await describe(namespace, namespace.host(name)));
      }
      return { instances };
    },
    instance: async ({ params }) => {
      const namespace = await this.namespace(params.namespace);
      return describe(namespace, existing(namespace, params.name));
    },
    deleteInstance: async ({ params: { name, ...params } }) => {
      const namespace = await this.namespace(params.namespace);
      if (!(await namespace.destroy(name))) throw new RouteError(404, `no instance ${name}`);
      this.deps.instanceEvents.fire({ kind: 'deleted', namespace: namespace.binding, name });
      return { deleted: true, namespace: namespace.binding, name };
    },
    clearEvents: async ({ params: { name, ...params } }) => {
      const namespace = await this.namespace(params.namespace);
      const deleted = await existing(namespace, name).inspect((db) => (tableExists(db, EVENTS_TABLE) ? db.exec(EVENTS_CLEAR).rowsWritten : 0));
      this.deps.instanceEvents.fire({ kind: 'changed', namespace: namespace.binding, name });
      return { deleted };
    },
    query: async ({ params, body: { sql, params: bound, timeoutMs } }) => {
      const namespace = await this.namespace(params.namespace);
      refuseStatement(sql, readOnlyRefusal);
      const instance = existing(namespace, params.name);
      // The caller's SQL never touches the live database: it runs on a copy, in a worker thread.
      const result = await this.deps.queries.run({ image: () => instance.inspect((db) => db.image()), sql, params: bound, timeoutMs });
      return { columns: result.columns, rows: answerRows(result.rows), ...(result.truncated ? { truncated: true as const } : {}) };
    },
    execute: async ({ params: { name, ...params }, body: { sql, params: bound, timeoutMs } }) => {
      const namespace = await this.namespace(params.namespace);
      refuseStatement(sql, executeRefusal);
      const instance = existing(namespace, name);
      // First on a copy, in the worker thread, under the time limit: a statement that loops is
      // stopped there (sql.js cannot interrupt one), and one that changed what the runtime relies
      // on is refused, before either touches the thread that answers webhooks.
      await this.deps.queries.check({ image: () => instance.inspect((db) => db.image()), sql, params: bound, timeoutMs });
      // Then by the instance on its live database, now known to finish within the limit: journaled
      // and durable before the answer (the output gate).
      const result = await instance.inspect((db) => {
        try {
          return db.exec(sql, bound);
        } catch (error) {
          throw new RouteError(400, `SQL error: ${(error as Error)?.message ?? String(error)}`);
        }
      });
      this.deps.instanceEvents.fire({ kind: 'changed', namespace: namespace.binding, name });
      const { maxRows } = this.deps;
      return {
        columns: result.columns,
        rows: answerRows(result.rows.slice(0, maxRows)),
        rowsWritten: result.rowsWritten,
        ...(result.rows.length > maxRows ? { truncated: true as const } : {}),
      };
    },
  };

  /** The namespace a route names, by its binding or the binding's kebab form. */
  private async namespace(wanted: string): Promise<DurableObjectNamespace> {
    const runtime = await this.deps.runtime();
    const found = runtime.namespaces.find((n) => n.binding === wanted || camelCaseToKebabCase(n.binding) === wanted);
    if (!found) throw new RouteError(404, `no namespace ${wanted}`);
    return found;
  }
}

/** The host of an instance that exists: asking about an instance must not create one. */
function existing(namespace: DurableObjectNamespace, name: string): InstanceHost {
  if (!namespace.has(name)) throw new RouteError(404, `no instance ${name}`);
  return namespace.host(name);
}

/** An instance's state row and its tables with their row counts (it wakes the instance). */
async function describe(namespace: DurableObjectNamespace, instance: InstanceHost): Promise<InstanceDetails> {
  const details = await instance.inspect((db) => {
    const stateRow = tableExists(db, AGENT_STATE_TABLE) ? db.exec(AGENT_STATE_SELECT, [AGENT_STATE_ROW_ID]).rows[0] : undefined;
    const tables = db
      .exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_hookbench%' ORDER BY name")
      .rows.map(([table]) => ({ name: String(table), rows: Number(db.exec(`SELECT count(*) FROM "${String(table).replace(/"/g, '""')}"`).rows[0]![0]) }));
    return { state: stateRow ? stateFromText(String(stateRow[0])) : null, tables };
  });
  return {
    namespace: namespace.binding,
    agent: camelCaseToKebabCase(namespace.binding),
    name: instance.name,
    awake: instance.isAwake,
    connections: instance.connectionCount,
    ...details,
  };
}

function tableExists(db: { exec(sql: string, params?: never[]): { rows: unknown[][] } }, name: string): boolean {
  return db.exec(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '${name}'`).rows.length > 0;
}
