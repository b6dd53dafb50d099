import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { lineLogger, parseLogLine, recording, tagged } from '../../../src/core/log';

const fixedClock = () => new Date('2026-01-02T03:04:05.678Z');

describe('lineLogger', () => {
  it('writes one line per message with time and level', () => {
    const lines: string[] = [];
    const logger = lineLogger((l) => lines.push(l), 'trace', fixedClock);
    logger.info('hello');
    logger.error('broken');
    assert.deepEqual(lines, ['2026-01-02T03:04:05.678Z info hello', '2026-01-02T03:04:05.678Z error broken']);
  });

  it('drops messages below its level', () => {
    const lines: string[] = [];
    const logger = lineLogger((l) => lines.push(l), 'warn', fixedClock);
    logger.trace('t');
    logger.debug('d');
    logger.info('i');
    logger.warn('w');
    assert.deepEqual(lines, ['2026-01-02T03:04:05.678Z warn w']);
  });

  it('writes an Error with its stack', () => {
    const lines: string[] = [];
    lineLogger((l) => lines.push(l), 'info', fixedClock).error(new Error('kaput'));
    assert.match(lines[0]!, /^2026-01-02T03:04:05.678Z error Error: kaput\n\s+at /);
  });
});

describe('tagged', () => {
  it('prefixes every level with the component tag', () => {
    const lines: string[] = [];
    const logger = tagged(
      lineLogger((l) => lines.push(l), 'trace', fixedClock),
      'receiver',
    );
    logger.debug('listening');
    logger.error(new Error('bad'));
    assert.match(lines[0]!, / debug \[receiver\] listening$/);
    assert.match(lines[1]!, / error \[receiver\] Error: bad/);
  });
});

describe('parseLogLine', () => {
  it('reads back what lineLogger wrote, multi-line messages included', () => {
    const lines: string[] = [];
    lineLogger((l) => lines.push(l), 'info', fixedClock).warn('first\nsecond');
    assert.deepEqual(parseLogLine(lines[0]!), {
      time: '2026-01-02T03:04:05.678Z',
      level: 'warn',
      message: 'first\nsecond',
    });
  });

  it('answers undefined for a line of another shape', () => {
    assert.equal(parseLogLine('npm warn something'), undefined);
    assert.equal(parseLogLine('2026-01-02T03:04:05.678Z loud nope'), undefined);
  });
});

describe('recording', () => {
  it('passes messages on and keeps only the newest lines', () => {
    const passed: string[] = [];
    const log = recording(
      lineLogger((l) => passed.push(l), 'trace', fixedClock),
      2,
    );
    log.info('one');
    log.warn('two');
    log.error(new Error('three'));
    assert.equal(passed.length, 3);
    assert.deepEqual(
      log.lines().map((l) => l.split('\n')[0]),
      ['warn two', 'error Error: three'],
    );
  });
});
