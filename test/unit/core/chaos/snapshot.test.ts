// Comparing what two runs left (docs/chaos.md, "What is compared"): noise is whatever differs
// between two identical runs and is masked everywhere; tables compare as sets of rows, without
// their arrival-order row ids; every difference reads as one line.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compareSnapshots, findNoise, NoiseMask, type Snapshot } from '../../../../src/core/chaos/snapshot';

const run = (state: unknown, rows: unknown[][], storage: Record<string, unknown> = {}): Snapshot => ({
  'AGENT/cus_1': { state, storage, tables: { events: { columns: ['seq', 'id', 'at'], rowIds: ['seq'], rows } } },
});

describe('noise', () => {
  it('is every state path, storage key and table column that differs between two identical runs', () => {
    const a = run({ total: 2, lastAt: '10:00' }, [[1, 'evt_1', '10:00']], { n: 1, seenAt: 5 });
    const b = run({ total: 2, lastAt: '10:01' }, [[1, 'evt_1', '10:01']], { n: 1, seenAt: 6 });
    assert.deepEqual(
      findNoise(a, b).map((n) => `${n.part} ${n.path}`),
      ['state lastAt', 'storage seenAt', 'table events at'],
    );
  });

  it('is a whole object whose keys differ (generated ids as keys)', () => {
    const noise = findNoise(run({ byId: { a1: 1 } }, []), run({ byId: { b2: 1 } }, []));
    assert.deepEqual(
      noise.map((n) => n.path),
      ['byId'],
    );
  });
});

describe('comparing a run with a clean one', () => {
  const clean = run({ total: 2, lastAt: '10:00' }, [
    [1, 'evt_1', '10:00'],
    [2, 'evt_2', '10:00'],
  ]);
  const mask = new NoiseMask(
    findNoise(
      clean,
      run({ total: 2, lastAt: '11:00' }, [
        [1, 'evt_1', '11:00'],
        [2, 'evt_2', '11:00'],
      ]),
    ),
  );

  it('finds nothing when only noise and arrival order differ', () => {
    const reordered = run({ total: 2, lastAt: '12:00' }, [
      [1, 'evt_2', '12:00'],
      [2, 'evt_1', '12:00'],
    ]);
    assert.deepEqual(compareSnapshots(clean, reordered, mask), []);
  });

  it('names a state leaf that differs, with both values', () => {
    const [difference] = compareSnapshots(
      clean,
      run({ total: 3, lastAt: 'x' }, [
        [1, 'evt_1', 'x'],
        [2, 'evt_2', 'x'],
      ]),
      mask,
    );
    assert.equal(difference!.line, 'AGENT/cus_1 state total: clean run 2, this run 3');
  });

  it('names a row too many, counting repeats', () => {
    const doubled = run({ total: 2 }, [
      [1, 'evt_1', 'x'],
      [2, 'evt_2', 'x'],
      [3, 'evt_2', 'y'],
    ]);
    assert.deepEqual(
      compareSnapshots(clean, doubled, mask).map((d) => d.line),
      ['AGENT/cus_1 table events: a row the clean run does not have: {"id":"evt_2"}'],
    );
  });

  it('tells a row that changed as one difference', () => {
    const a: Snapshot = { 'AGENT/x': { state: undefined, storage: {}, tables: { totals: { columns: ['id', 'total'], rowIds: ['id'], rows: [[1, 200]] } } } };
    const b: Snapshot = { 'AGENT/x': { state: undefined, storage: {}, tables: { totals: { columns: ['id', 'total'], rowIds: ['id'], rows: [[1, 400]] } } } };
    assert.deepEqual(
      compareSnapshots(a, b, new NoiseMask()).map((d) => d.line),
      ['AGENT/x table totals: a row the clean run has as {"total":200} is {"total":400} here'],
    );
  });

  it('names an entity the clean run never created', () => {
    const extra: Snapshot = { ...clean, 'AGENT/cus_9': { state: { total: 1 }, storage: {}, tables: {} } };
    assert.deepEqual(
      compareSnapshots(clean, extra, mask).map((d) => d.line),
      ['AGENT/cus_9 state (whole): clean run (absent), this run {"total":1}'],
    );
  });
});
