// An instance's folder on real sql.js files: the real name kept beside the data on the first wake
// only, a wake that waits for the close still running, a reset's writes dropped at close, a close
// that fails logged rather than thrown, and the alarm marker a restart looks for.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { nullLogger } from '../../../../src/core/log';
import { ALARM_MARKER, InstanceFolder } from '../../../../src/runtime/objects/instanceFolder';
import { testPlatform } from '../../helpers/platform';

async function folder(logger = nullLogger): Promise<{ folder: InstanceFolder; dir: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-folder-'));
  return { folder: new InstanceFolder(await testPlatform({ logger }), 'Ünï name/1', dir), dir };
}

const rows = (db: { exec(sql: string): { rows: unknown[][] } }): unknown[] => db.exec('SELECT v FROM t ORDER BY v').rows.map((row) => row[0]);

describe('instance folder', () => {
  it('keeps the real name beside the data at the first wake only', async () => {
    const { folder: f, dir } = await folder();
    const first = await f.open();
    assert.equal(first.created, true);
    assert.equal(fs.readFileSync(path.join(dir, 'name'), 'utf8'), 'Ünï name/1');
    await f.close(Promise.resolve(first), { snapshot: true });
    const second = await f.open();
    assert.equal(second.created, false);
    await f.close(Promise.resolve(second), { snapshot: true });
  });

  it('opens again only once the close under way has finished, with what it committed', async () => {
    const { folder: f } = await folder();
    const first = await f.open();
    first.db.exec('CREATE TABLE t (v INTEGER)');
    first.db.exec('INSERT INTO t (v) VALUES (1)');
    const order: string[] = [];
    const closing = f.close(Promise.resolve(first), { snapshot: true }).then(() => order.push('closed'));
    const reopening = f.open().then((open) => (order.push('opened'), open));
    const [, second] = await Promise.all([closing, reopening]);
    assert.deepEqual(order, ['closed', 'opened']);
    assert.deepEqual(rows(second.db), [1], 'the close committed the write before the open read the folder');
    await f.close(Promise.resolve(second), { snapshot: true });
    await f.closed();
  });

  it('drops what a reset object did not commit when it closes with discard', async () => {
    const { folder: f } = await folder();
    const first = await f.open();
    first.db.exec('CREATE TABLE t (v INTEGER)');
    first.db.exec('INSERT INTO t (v) VALUES (1)');
    await first.db.commit();
    first.db.exec('INSERT INTO t (v) VALUES (2)');
    await f.close(Promise.resolve(first), { snapshot: false, discard: true });
    const second = await f.open();
    assert.deepEqual(rows(second.db), [1]);
    await f.close(Promise.resolve(second), { snapshot: true });
  });

  it('logs a close that fails instead of throwing it', async () => {
    const errors: string[] = [];
    const { folder: f } = await folder({ ...nullLogger, error: (line: string | Error) => errors.push(String(line)) });
    await f.close(Promise.reject(new Error('the disk went away')), { snapshot: true });
    assert.deepEqual(errors, ['Ünï name/1: closing: the disk went away']);
  });

  it('marks an instance with an alarm for a restart, and forgets the mark when a wake finds none', async () => {
    const { folder: f, dir } = await folder();
    const marker = path.join(dir, ALARM_MARKER);
    f.alarmSet(null);
    assert.equal(fs.existsSync(marker), false);
    f.alarmSet(Date.now() + 1000);
    assert.equal(fs.existsSync(marker), true);
    f.alarmSet(null);
    assert.equal(fs.existsSync(marker), true, 'a deleted alarm leaves the mark to the next wake');
    f.noAlarm();
    assert.equal(fs.existsSync(marker), false);
  });
});
