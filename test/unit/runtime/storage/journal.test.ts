import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { JournalWriter, encodeRecord, readJournal } from '../../../../src/runtime/storage/journal';

function tempFile(): string {
  return path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'hb-journal-')), 'journal.log');
}

const record = (seq: number) => ({ seq, statements: [{ sql: 'INSERT INTO t VALUES (?, ?)', params: [seq, `v${seq}`] }] });

describe('journal', () => {
  it('reads back what was flushed, blobs and nulls included', async () => {
    const file = tempFile();
    const writer = new JournalWriter(file);
    writer.append({ seq: 1, statements: [{ sql: 'X', params: [null, 1.5, 'é', new Uint8Array([0, 255])] }] });
    writer.append(record(2));
    await writer.flush();
    await writer.close();
    const { records, droppedBytes } = readJournal(file);
    assert.equal(droppedBytes, 0);
    assert.deepEqual(records[0]!.statements[0]!.params, [null, 1.5, 'é', new Uint8Array([0, 255])]);
    assert.equal(records[1]!.seq, 2);
  });

  it('drops a torn final record at every cut point, and truncates it away', () => {
    const whole = Buffer.concat([encodeRecord(record(1)), encodeRecord(record(2))]);
    const firstLength = encodeRecord(record(1)).length;
    for (let cut = firstLength + 1; cut < whole.length; cut++) {
      const file = tempFile();
      fs.writeFileSync(file, whole.subarray(0, cut));
      const { records, droppedBytes } = readJournal(file);
      assert.deepEqual(
        records.map((r) => r.seq),
        [1],
      );
      assert.equal(droppedBytes, cut - firstLength);
      assert.equal(fs.statSync(file).size, firstLength);
    }
  });

  it('reports a damaged record that has records after it, and leaves the file alone', () => {
    const file = tempFile();
    const data = Buffer.concat([encodeRecord(record(1)), encodeRecord(record(2)), encodeRecord(record(3))]);
    const at = encodeRecord(record(1)).length + 12;
    data[at] = data[at]! ^ 0xff;
    fs.writeFileSync(file, data);
    assert.throws(() => readJournal(file), /fails its checksum and more records follow/);
    assert.equal(fs.statSync(file).size, data.length);
  });

  it('shares one write and fdatasync among the appends that arrive while a batch is in flight', async () => {
    const file = tempFile();
    const writer = new JournalWriter(file);
    writer.append(record(1));
    const first = writer.flush();
    writer.append(record(2));
    const second = writer.flush();
    writer.append(record(3));
    const third = writer.flush();
    assert.equal(second, third, 'later callers share the next batch');
    await Promise.all([first, second, third]);
    assert.deepEqual(
      readJournal(file).records.map((r) => r.seq),
      [1, 2, 3],
    );
    await writer.close();
  });
});
