// The agents SDK's cf_agents_workflows table on a real sql.js file: rows from runWorkflow, status
// updates from instance.status() and from callbacks, filters, cursor paging, deletes, and the
// SDK's messages for a duplicate id and a corrupt cursor.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { SqlJsStatic } from 'sql.js';
import { DurableDatabase } from '../../../../../src/runtime/storage/durableDatabase';
import { loadSqlJs } from '../../../../../src/runtime/storage/sqljs';
import { SqlStorage } from '../../../../../src/runtime/objects/sqlStorage';
import { WorkflowTracking } from '../../../../../src/runtime/agents/workflows/workflowTable';

describe('workflow tracking (cf_agents_workflows)', () => {
  let sql: SqlJsStatic;
  before(async () => {
    sql = await loadSqlJs();
  });

  async function table(now: () => number): Promise<{ tracking: WorkflowTracking; db: DurableDatabase }> {
    const db = await DurableDatabase.open({ sql, dir: fs.mkdtempSync(path.join(os.tmpdir(), 'hb-track-')) });
    return { tracking: new WorkflowTracking(new SqlStorage(db), now), db };
  }

  it('tracks, updates from status and callbacks, and refuses a duplicate id', async () => {
    let clock = 1_700_000_000_000;
    const { tracking, db } = await table(() => clock);
    tracking.insert('r1', 'wf-1', 'DELIVERY', { user: 'a' });
    assert.equal(tracking.get('wf-1')?.status, 'queued');
    assert.deepEqual(tracking.get('wf-1')?.metadata, { user: 'a' });
    assert.throws(() => tracking.insert('r2', 'wf-1', 'DELIVERY', null), { message: 'Workflow with ID "wf-1" is already being tracked' });
    tracking.onCallback({ type: 'progress', workflowId: 'wf-1' });
    assert.equal(tracking.get('wf-1')?.status, 'running');
    clock += 5000;
    tracking.onCallback({ type: 'error', workflowId: 'wf-1', error: 'boom' });
    const errored = tracking.get('wf-1')!;
    assert.deepEqual(
      [errored.status, errored.error, errored.completedAt?.getTime()],
      ['errored', { name: 'WorkflowError', message: 'boom' }, 1_700_000_005_000],
    );
    tracking.reset('wf-1');
    assert.deepEqual([tracking.get('wf-1')?.status, tracking.get('wf-1')?.error, tracking.get('wf-1')?.completedAt], ['queued', null, null]);
    tracking.update('wf-1', { status: 'terminated' });
    tracking.onCallback({ type: 'complete', workflowId: 'wf-1' });
    assert.equal(tracking.get('wf-1')?.status, 'terminated', 'a late complete does not undo a terminate');
    await db.close();
  });

  it('lists with filters and a cursor, deletes by criteria', async () => {
    let clock = 1_700_000_000_000;
    const { tracking, db } = await table(() => clock);
    for (let i = 0; i < 5; i++) {
      tracking.insert(`r${i}`, `wf-${i}`, i < 3 ? 'A' : 'B', { n: i % 2 });
      clock += 1000;
    }
    const first = tracking.list({ limit: 2, orderBy: 'asc' });
    assert.deepEqual([first.total, first.workflows.map((w) => w.workflowId)], [5, ['wf-0', 'wf-1']]);
    const second = tracking.list({ limit: 2, orderBy: 'asc', cursor: first.nextCursor! });
    assert.deepEqual(
      second.workflows.map((w) => w.workflowId),
      ['wf-2', 'wf-3'],
    );
    assert.deepEqual(
      tracking.list({ workflowName: 'B' }).workflows.map((w) => w.workflowId),
      ['wf-4', 'wf-3'],
      'newest first by default',
    );
    assert.equal(tracking.list({ metadata: { n: 1 } }).total, 2);
    assert.throws(() => tracking.list({ cursor: 'not a cursor' }), { message: 'Invalid pagination cursor. The cursor may be malformed or corrupted.' });
    assert.equal(tracking.deleteMany({ workflowName: 'A', createdBefore: new Date(1_700_000_002_000) }), 2);
    assert.equal(tracking.delete('wf-2'), true);
    assert.equal(tracking.delete('wf-2'), false);
    assert.deepEqual(tracking.orphans(['A']), ['B']);
    await db.close();
  });
});
