// A stand-in for the Stripe CLI (the real `stripe listen` needs an account and the network): a
// `stripe` script in a folder of its own that answers `listen --help` and prints the ready line
// with its signing secret as Stripe CLI 1.52.0 does (test/fixtures/expose), then waits.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** The secret the recorded ready line holds. */
export const STAND_IN_SECRET = 'whsec_testsecret123';

/** Writes the stand-in; returns the folder to put first on the PATH. `fixtures` is test/fixtures/expose. */
export function stripeStandIn(fixtures: string, waitSeconds: number): string {
  const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
  const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-stripe-standin-'));
  const help = quote(path.join(fixtures, 'stripe-listen-help-1.52.0.txt'));
  const ready = quote(path.join(fixtures, 'stripe-listen-ready-1.52.0.stderr.txt'));
  fs.writeFileSync(path.join(bin, 'stripe'), `#!/bin/sh\nif [ "$2" = "--help" ]; then cat ${help}; exit 0; fi\ncat ${ready} >&2\nexec sleep ${waitSeconds}\n`, {
    mode: 0o755,
  });
  return bin;
}
