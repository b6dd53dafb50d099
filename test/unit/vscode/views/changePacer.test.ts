// The explorer's pacing on the manual clock: marks gather into one change, at most one per pace,
// the lists at most one per the lists' pace, and a change the user asked for is not held back.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ChangePacer, type ExplorerChange } from '../../../../src/vscode/views/changePacer';
import { ManualTimers } from '../../helpers/manualTimers';

function paced(paceMs = 250, listPaceMs = 1000) {
  const timers = new ManualTimers();
  const pacer = new ChangePacer({ timers, paceMs, listPaceMs });
  const changes: ExplorerChange[] = [];
  pacer.onDidChange((change) => changes.push(change));
  return { pacer, timers, changes };
}

describe('the explorer’s change pacer', () => {
  it('fires a synchronous burst of marks as one change on the next turn, naming all they touched', async () => {
    const { pacer, timers, changes } = paced();
    pacer.mark({ instances: ['NS/a'] });
    pacer.mark({ instances: ['NS/b'], events: ['NS/a'] });
    pacer.mark({ namespaces: ['NS'], namespaceList: true });
    assert.equal(changes.length, 0, 'nothing fires in the same turn');
    await timers.advance(0);
    assert.equal(changes.length, 1);
    const [change] = changes;
    assert.deepEqual(
      [[...change!.instances], [...change!.events], [...change!.namespaces], change!.namespaceList, change!.all],
      [['NS/a', 'NS/b'], ['NS/a'], ['NS'], true, false],
    );
  });

  it('holds a second change until the pace has passed since the first', async () => {
    const { pacer, timers, changes } = paced();
    pacer.mark({ instances: ['NS/a'] });
    await timers.advance(0);
    pacer.mark({ instances: ['NS/b'] });
    await timers.advance(249);
    assert.equal(changes.length, 1, 'not before 250 ms');
    await timers.advance(1);
    assert.equal(changes.length, 2);
    assert.deepEqual([...changes[1]!.instances], ['NS/b']);
  });

  it('lets a change of the lists alone wait for the lists’ pace', async () => {
    const { pacer, timers, changes } = paced();
    pacer.mark({ deliveries: true });
    await timers.advance(0);
    assert.equal(changes.length, 1, 'the first after a quiet second goes at once');
    pacer.mark({ captures: true });
    await timers.advance(999);
    assert.equal(changes.length, 1);
    await timers.advance(1);
    assert.deepEqual([changes.length, changes[1]!.captures, changes[1]!.deliveries], [2, true, false]);
  });

  it('sends the nodes that changed at their pace and keeps the lists for theirs', async () => {
    const { pacer, timers, changes } = paced();
    pacer.mark({ deliveries: true });
    await timers.advance(0);
    pacer.mark({ deliveries: true, instances: ['NS/a'] });
    await timers.advance(250);
    assert.equal(changes.length, 2);
    assert.deepEqual([[...changes[1]!.instances], changes[1]!.deliveries], [['NS/a'], false]);
    await timers.advance(750);
    assert.equal(changes.length, 3);
    assert.deepEqual([changes[2]!.instances.size, changes[2]!.deliveries], [0, true]);
  });

  it('lets everything redrawn carry the lists whatever their pace', async () => {
    const { pacer, timers, changes } = paced();
    pacer.mark({ deliveries: true });
    await timers.advance(0);
    pacer.mark({ all: true, deliveries: true });
    await timers.advance(250);
    assert.deepEqual([changes.length, changes[1]!.all, changes[1]!.deliveries], [2, true, true]);
  });

  it('sends the lists at the next pace once the user asked for more of them', async () => {
    const { pacer, timers, changes } = paced();
    pacer.mark({ deliveries: true });
    await timers.advance(0);
    pacer.hurryLists();
    pacer.mark({ deliveries: true });
    await timers.advance(250);
    assert.equal(changes.length, 2);
  });

  it('fires nothing for an empty mark, and nothing after it is disposed', async () => {
    const { pacer, timers, changes } = paced();
    pacer.mark({});
    assert.equal(timers.scheduled, 0);
    pacer.mark({ instances: ['NS/a'] });
    pacer.dispose();
    assert.equal(timers.scheduled, 0, 'its timer is cancelled');
    await timers.advance(1000);
    assert.equal(changes.length, 0);
  });
});
