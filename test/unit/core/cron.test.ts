import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { nextCronTime, parseCron } from '../../../src/core/cron';

const next = (expression: string, after: string) => new Date(nextCronTime(parseCron(expression), Date.parse(after))).toISOString();

describe('cron', () => {
  it('finds the next minute strictly after the given time', () => {
    assert.equal(next('* * * * *', '2026-01-01T00:00:00.000Z'), '2026-01-01T00:01:00.000Z');
    assert.equal(next('* * * * *', '2026-01-01T00:00:30.000Z'), '2026-01-01T00:01:00.000Z');
  });

  it('handles steps, ranges, lists and names', () => {
    assert.equal(next('*/15 * * * *', '2026-01-01T00:16:00Z'), '2026-01-01T00:30:00.000Z');
    assert.equal(next('0 9-17/4 * * *', '2026-01-01T10:00:00Z'), '2026-01-01T13:00:00.000Z');
    assert.equal(next('30 8 * * mon,fri', '2026-01-01T00:00:00Z'), '2026-01-02T08:30:00.000Z'); // 1 Jan 2026 is a Thursday
    assert.equal(next('0 0 1 jan *', '2026-03-01T00:00:00Z'), '2027-01-01T00:00:00.000Z');
  });

  it('treats 7 as Sunday, and either day field matching when both are restricted', () => {
    assert.equal(next('0 0 * * 7', '2026-01-01T00:00:00Z'), '2026-01-04T00:00:00.000Z');
    assert.equal(next('0 0 15 * 1', '2026-01-01T00:00:00Z'), '2026-01-05T00:00:00.000Z');
  });

  it('reaches 29 February', () => {
    assert.equal(next('0 12 29 2 *', '2026-03-01T00:00:00Z'), '2028-02-29T12:00:00.000Z');
  });

  it('rejects malformed expressions with a message naming the problem', () => {
    assert.throws(() => parseCron('* * * *'), /expected 5 fields/);
    assert.throws(() => parseCron('61 * * * *'), /"61" is out of range/);
    assert.throws(() => parseCron('*/0 * * * *'), /bad step/);
    assert.throws(() => parseCron('5-1 * * * *'), /empty range/);
    assert.throws(() => parseCron('* * * * funday'), /"funday" is out of range/);
  });
});
