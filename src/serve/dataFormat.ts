/**
 * The data folder's format marker. Hookbench 0.2 changed how the built-in worker names entities
 * (path segments percent-decoded; Stripe, Twilio, Slack and Shopify ids keep their case), so an
 * instance an earlier version created may no longer be the one new deliveries reach. A folder
 * written before the marker existed gets one log line that says so, once; then the marker.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Logger } from '../core/log';
import { INTERNAL_DIR } from '../core/contract/dataFolder';
import { mkdirPrivate, readPrivate, writePrivate } from '../core/privateFiles';

export const DATA_FORMAT = 2;

export function noteDataFormat(dataDir: string, markerFile: string, logger: Logger): void {
  let written: number | undefined;
  try {
    written = Number(readPrivate(markerFile).toString('utf8').trim());
  } catch {
    written = undefined;
  }
  if (written === DATA_FORMAT) return;
  const earlier = fs.readdirSync(dataDir).some((entry) => entry !== INTERNAL_DIR);
  if (earlier && (written === undefined || written < DATA_FORMAT)) {
    logger.info(
      '[agents] this data folder was written by an earlier Hookbench, which named entities differently: path segments are now percent-decoded (acme%2Fwidgets is acme-widgets) and Stripe, Twilio, Slack and Shopify ids keep their case (cus_AbC). Events stored under an old name stay in that instance; new deliveries reach the new name (docs/runtime.md, "Entity names").',
    );
  }
  mkdirPrivate(path.dirname(markerFile));
  writePrivate(markerFile, `${DATA_FORMAT}\n`);
}
