// The state timeline's diff of two states and its steps.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { diffStates, pathText } from '../../../../src/core/inspector/stateDiff';
import { step, timelineFrom } from '../../../../src/core/inspector/timeline';

describe('diff of two states', () => {
  it('finds the changed, added and removed leaves at their paths', () => {
    const before = { lastEventType: 'push', stats: { total: 1, byType: { push: 1 } }, gone: true };
    const after = { lastEventType: 'issues', stats: { total: 2, byType: { push: 1, issues: 1 } } };
    assert.deepEqual(diffStates(before, after), [
      { kind: 'changed', path: ['lastEventType'], before: 'push', after: 'issues' },
      { kind: 'changed', path: ['stats', 'total'], before: 1, after: 2 },
      { kind: 'added', path: ['stats', 'byType', 'issues'], after: 1 },
      { kind: 'removed', path: ['gone'], before: true },
    ]);
  });

  it('says nothing changed for equal states, however deep', () => {
    assert.deepEqual(diffStates({ a: [1, { b: null }] }, { a: [1, { b: null }] }), []);
  });

  it('compares arrays by index, with what was appended or cut', () => {
    assert.deepEqual(diffStates([1, 2], [1, 3, 4]), [
      { kind: 'changed', path: [1], before: 2, after: 3 },
      { kind: 'added', path: [2], after: 4 },
    ]);
    assert.deepEqual(diffStates({ l: [1, 2] }, { l: [1] }), [{ kind: 'removed', path: ['l', 1], before: 2 }]);
  });

  it('takes a change of kind (object to array, value to null, no state to a state) as one change', () => {
    assert.deepEqual(diffStates({ a: { x: 1 } }, { a: [1] }), [{ kind: 'changed', path: ['a'], before: { x: 1 }, after: [1] }]);
    assert.deepEqual(diffStates(null, { a: 1 }), [{ kind: 'changed', path: [], before: null, after: { a: 1 } }]);
  });

  it('writes paths as a reader does, quoting keys that are not names', () => {
    assert.equal(pathText(['stats', 'byType', 'push']), 'stats.byType.push');
    assert.equal(pathText(['items', 0, 'id']), 'items[0].id');
    assert.equal(pathText(['byType', 'pull_request.review']), 'byType["pull_request.review"]');
    assert.equal(pathText([]), '(state)');
  });
});

describe('timeline steps', () => {
  const row = (seq: number, before: string | null, after: string) => ({
    seq,
    event_id: `e${seq}`,
    event_type: 'push',
    title: null,
    at: '2026-11-22T00:00:00.000Z',
    before,
    after,
  });

  it('parses each row and diffs its before and after', () => {
    const [first] = timelineFrom([row(1, '{"n":0}', '{"n":1}')]);
    assert.deepEqual(first!.changes, [{ kind: 'changed', path: ['n'], before: 0, after: 1 }]);
  });

  it('keeps a stored text that is not JSON as text instead of failing the timeline', () => {
    const [first] = timelineFrom([row(1, null, 'not json')]);
    assert.equal(first!.after, 'not json');
    assert.equal(first!.before, null);
  });

  it('steps inside the timeline', () => {
    assert.equal(step(0, -1, 3), 0);
    assert.equal(step(2, 1, 3), 2);
    assert.equal(step(1, 1, 3), 2);
    assert.equal(step(5, 0, 0), 0);
  });
});
