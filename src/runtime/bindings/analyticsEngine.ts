/**
 * The Workers Analytics Engine binding (`analytics_engine_datasets`). wrangler dev accepts every
 * `writeDataPoint(event)` and keeps nothing (Miniflare's local dataset does nothing); Hookbench
 * accepts the same, never throws, and makes each point observable: one JSON line per point
 * (`time`, `blobs`, `doubles`, `indexes`; byte values as `{ "base64": … }`) appended to
 * `data-points.jsonl` in `<data>/_bindings/analytics_engine/<dataset>/` (the dataset's name
 * encoded as other binding folders are), and one line in the log.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Logger } from '../../core/log';
import { encodeName } from '../storage/names';
import type { AnalyticsEngineBinding } from '../../core/workerConfig/bindingsConfig';

/** A byte value (ArrayBuffer or view) as JSON can carry it; anything else as it is. */
function jsonValue(_key: string, value: unknown): unknown {
  if (value instanceof ArrayBuffer) return { base64: Buffer.from(value).toString('base64') };
  if (ArrayBuffer.isView(value)) return { base64: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') };
  return value;
}

export class AnalyticsEngineDataset {
  readonly #file: string;

  constructor(
    private readonly config: AnalyticsEngineBinding,
    dataDir: string,
    private readonly logger: Logger,
    private readonly now: () => number,
  ) {
    this.#file = path.join(dataDir, '_bindings', 'analytics_engine', encodeName(config.dataset), 'data-points.jsonl');
  }

  writeDataPoint(event?: unknown): void {
    const given = (event && typeof event === 'object' ? event : {}) as Record<string, unknown>;
    const point = { time: new Date(this.now()).toISOString(), blobs: given['blobs'] ?? [], doubles: given['doubles'] ?? [], indexes: given['indexes'] ?? [] };
    let line: string;
    try {
      line = JSON.stringify(point, jsonValue);
    } catch (error) {
      this.logger.warn(`[analytics] ${this.config.binding} (${this.config.dataset}): a data point that cannot be recorded: ${(error as Error).message}`);
      return;
    }
    try {
      fs.mkdirSync(path.dirname(this.#file), { recursive: true });
      fs.appendFileSync(this.#file, line + '\n');
    } catch (error) {
      this.logger.warn(`[analytics] ${this.config.binding}: cannot append to ${this.#file}: ${(error as Error).message}`);
    }
    this.logger.info(`[analytics] ${this.config.binding} (${this.config.dataset}) data point: ${line}`);
  }
}
