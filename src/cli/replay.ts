/**
 * `hookbench replay <dir|file>...`: a fixture set run as a regression suite. Each fixture is sent
 * in order, re-signed, and its answer's status (and with --expect-state the entity's agent state
 * afterwards, read over the agents protocol) is checked against what the fixture recorded. One
 * line per fixture, a summary, exit 1 on any failure, 2 on usage errors.
 */
import { DEFAULT_RECEIVER_URL } from '../core/contract/webhookRoutes';
import { burstGroups, burstNote, runGroup, type RunOptions } from '../core/fixtures/runFixture';
import { httpUrl, parseFlagsAndPositionals, UsageError } from './args';
import { envFileVars, loadFixtures, providerSecret } from './fixtureIo';
import type { CliIo } from './io';

export const replayUsage = `Usage: hookbench replay <dir|file>... [--to URL] [--expect-status CODE] [--expect-state]
         [--ignore PATH]... [--agent NAME] [--new-ids] [--env-file FILE] [--bail]
  Sends each fixture (a folder means every *.json below it, by name, so 01-…, 02-… run in order),
  re-signed with its provider's secret (GITHUB_WEBHOOK_SECRET, STRIPE_WEBHOOK_SECRET… from the
  environment or --env-file), to --to (default ${DEFAULT_RECEIVER_URL}) plus the fixture's path.
  Checks each answer's status against the fixture's expect.status, or against CODE for every
  fixture with --expect-status. --expect-state also reads the entity's agent state after each
  fixture that recorded one (over the agents protocol, /agents/<agent>/<entity>; the fixture's
  agent, else --agent, else webhook-agent) and compares it, leaving out the fixture's
  expect.ignore paths and each --ignore PATH (dotted, e.g. lastEventAt). --new-ids sends each
  with a fresh delivery id, so a receiver that saw them already processes them again. Neighbouring
  fixtures with the same "burst" (a hookbench chaos case) are sent at once. --bail
  stops at the first failure. Prints one line per fixture (ok / FAIL and what differed) and a
  summary; exits 0 when all passed, 1 when any failed, 2 on a usage error or a broken fixture.`;

function flags(argv: string[]) {
  return parseFlagsAndPositionals(argv, {
    to: { type: 'string', default: DEFAULT_RECEIVER_URL },
    'expect-status': { type: 'string' },
    'expect-state': { type: 'boolean', default: false },
    ignore: { type: 'string', multiple: true, default: [] },
    agent: { type: 'string', default: 'webhook-agent' },
    'new-ids': { type: 'boolean', default: false },
    'env-file': { type: 'string' },
    bail: { type: 'boolean', default: false },
  });
}

export async function replay(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = flags(argv);
  if (positionals.length === 0) throw new UsageError('name the fixture files or folders to replay (e.g. .hookbench/fixtures)');
  httpUrl(values.to, '--to');
  const code = values['expect-status'];
  if (code !== undefined && !/^[1-5]\d\d$/.test(code)) throw new UsageError(`--expect-status ${code} is not an HTTP status`);
  if (!/^[a-z0-9][a-z0-9-]*$/.test(values.agent)) throw new UsageError(`--agent ${values.agent}: give the kebab-case name of /agents/<agent>/<name>`);
  const options: RunOptions = {
    to: values.to,
    expectStatus: code === undefined ? undefined : Number(code),
    expectState: values['expect-state'],
    ignore: values.ignore,
    agent: values.agent,
    newIds: values['new-ids'],
  };

  // Everything is read and every secret found before the first send: a broken suite sends nothing.
  const suite = loadFixtures(positionals);
  const fileVars = envFileVars(values['env-file']);
  const secrets = new Map(suite.map(({ fixture }) => [fixture.provider, providerSecret(fixture.provider, io.env, fileVars)]));
  const width = Math.min(48, Math.max(...suite.map(({ fixture }) => fixture.name.length)));

  let passed = 0;
  let failed = 0;
  for (const group of burstGroups(suite).map((entries) => entries.map(({ fixture }) => fixture))) {
    const outcomes = await runGroup(group, (f) => secrets.get(f.provider)!, options);
    outcomes.forEach((outcome, i) => {
      io.stdout.write(`${outcome.passed ? 'ok  ' : 'FAIL'}  ${group[i]!.name.padEnd(width)}  ${outcome.line}${burstNote(group.length)}\n`);
      for (const detail of outcome.details) io.stdout.write(`      ${detail}\n`);
      if (outcome.passed) passed++;
      else failed++;
    });
    if (outcomes.some((o) => !o.passed) && values.bail) break;
  }
  const skipped = suite.length - passed - failed;
  io.stdout.write(
    `\n${suite.length} fixture${suite.length === 1 ? '' : 's'}: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} not run (--bail)` : ''}\n`,
  );
  return failed === 0 ? 0 : 1;
}
