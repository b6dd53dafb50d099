// The platform a test runs the runtime on (src/runtime/platform.ts), built as serve builds
// its own: a fresh sql.js, a quiet logger, a temp data folder and real timers, unless the test
// gives its own.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { nullLogger } from '../../../src/core/log';
import { createPlatform, type Platform, type PlatformParts } from '../../../src/runtime/platform';
import { loadSqlJs } from '../../../src/runtime/storage/sqljs';

export async function testPlatform(parts: Partial<PlatformParts> = {}): Promise<Platform> {
  return createPlatform({
    ...parts,
    sql: parts.sql ?? (await loadSqlJs()),
    logger: parts.logger ?? nullLogger,
    dataDir: parts.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'hb-platform-')),
  });
}
