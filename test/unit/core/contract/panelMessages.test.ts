// The webview pages' messages (results, timeline, chaos): each panel acts only on what its parser
// accepts, since a page's message is untrusted.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseChaosMessage, parseResultsMessage, parseTimelineMessage } from '../../../../src/core/contract/panelMessages';

describe('the webview pages’ messages', () => {
  it('accepts each results button’s command, and nothing else', () => {
    assert.deepEqual(parseResultsMessage({ type: 'command', command: 'exportCsv', arg: undefined }), { type: 'command', command: 'exportCsv' });
    for (const refused of [
      { type: 'command', command: 'toString' },
      { type: 'command', command: 'prev' },
      { type: 'click', command: 'run' },
      'run',
      null,
      undefined,
    ])
      assert.equal(parseResultsMessage(refused), undefined, JSON.stringify(refused));
  });

  it('accepts a timeline step chosen by its index only when the index is a number', () => {
    assert.deepEqual(parseTimelineMessage({ type: 'command', command: 'select', arg: '12' }), { type: 'command', command: 'select', arg: '12' });
    assert.deepEqual(parseTimelineMessage({ type: 'command', command: 'openAfter' }), { type: 'command', command: 'openAfter' });
    for (const arg of ['-1', '1e3', '', 3, undefined]) assert.equal(parseTimelineMessage({ type: 'command', command: 'select', arg }), undefined, String(arg));
    assert.equal(parseTimelineMessage({ type: 'command', command: 'replay' }), undefined, 'a chaos command is not the timeline’s');
  });

  it('accepts a chaos failure chosen by a perturbation it knows, and the steps and replay', () => {
    assert.deepEqual(parseChaosMessage({ type: 'command', command: 'select', arg: 'duplicates' }), { type: 'command', command: 'select', arg: 'duplicates' });
    assert.deepEqual(parseChaosMessage({ type: 'command', command: 'replay', arg: 'ignored' }), { type: 'command', command: 'replay' });
    assert.equal(parseChaosMessage({ type: 'command', command: 'select', arg: '<img src=x>' }), undefined);
    assert.equal(parseChaosMessage({ type: 'command', command: 'openBefore' }), undefined, 'a timeline command is not chaos’s');
  });
});
