/**
 * `hookbench replay <dir|file>...`: a fixture set run as a regression suite. Each fixture is sent
 * in order, re-signed, and its answer's status (and with --expect-state the entity's agent state
 * afterwards, read over the agents protocol) is checked against what the fixture recorded. One
 * line per fixture, a summary, exit 1 on any failure, 2 on usage errors.
 */
import { parseArgs } from 'node:util';
import { readAgentState } from '../../core/fixtures/agentState';
import { signedRequest } from '../../core/fixtures/signedRequest';
import { stateDiff } from '../../core/fixtures/stateDiff';
import type { Fixture } from '../../core/contract/fixtures';
import { UsageError } from './args';
import { envFileVars, loadFixtures, post, providerSecret } from './fixtureIo';
import type { CliIo } from './io';

export const replayUsage = `Usage: hookbench replay <dir|file>... [--to URL] [--expect-status CODE] [--expect-state]
         [--ignore PATH]... [--agent NAME] [--new-ids] [--env-file FILE] [--bail]
  Sends each fixture (a folder means every *.json below it, by name, so 01-…, 02-… run in order),
  re-signed with its provider's secret (GITHUB_WEBHOOK_SECRET, STRIPE_WEBHOOK_SECRET… from the
  environment or --env-file), to --to (default http://127.0.0.1:8787) plus the fixture's path.
  Checks each answer's status against the fixture's expect.status, or against CODE for every
  fixture with --expect-status. --expect-state also reads the entity's agent state after each
  fixture that recorded one (over the agents protocol, /agents/<agent>/<entity>; the fixture's
  agent, else --agent, else webhook-agent) and compares it, leaving out the fixture's
  expect.ignore paths and each --ignore PATH (dotted, e.g. lastEventAt). --new-ids sends each
  with a fresh delivery id, so a receiver that saw them already processes them again. --bail
  stops at the first failure. Prints one line per fixture (ok / FAIL and what differed) and a
  summary; exits 0 when all passed, 1 when any failed, 2 on a usage error or a broken fixture.`;

interface ReplayOptions {
  readonly to: string;
  readonly expectStatus: number | undefined;
  readonly expectState: boolean;
  readonly ignore: readonly string[];
  readonly agent: string;
  readonly newIds: boolean;
}

interface Outcome {
  readonly passed: boolean;
  readonly line: string;
  readonly details: readonly string[];
}

function flags(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      strict: true,
      allowPositionals: true,
      options: {
        to: { type: 'string', default: 'http://127.0.0.1:8787' },
        'expect-status': { type: 'string' },
        'expect-state': { type: 'boolean', default: false },
        ignore: { type: 'string', multiple: true, default: [] },
        agent: { type: 'string', default: 'webhook-agent' },
        'new-ids': { type: 'boolean', default: false },
        'env-file': { type: 'string' },
        bail: { type: 'boolean', default: false },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

const firstLine = (text: string) => {
  const line = text.split('\n')[0]!.trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
};

async function runOne(fixture: Fixture, secret: string, options: ReplayOptions): Promise<Outcome> {
  const request = signedRequest(fixture, { secret, base: options.to, newId: options.newIds, source: 'replay' });
  let answer;
  try {
    answer = await post(request);
  } catch (error) {
    return { passed: false, line: 'no answer', details: [(error as Error).message] };
  }
  const details: string[] = [];
  const expected = options.expectStatus ?? fixture.expect?.status;
  if (expected !== undefined && answer.status !== expected) details.push(`status: expected ${expected}, got ${answer.status} (${firstLine(answer.body) || 'empty body'})`);
  let stateNote = '';
  if (options.expectState) {
    if (fixture.expect === undefined || !('state' in fixture.expect)) stateNote = ', state not recorded';
    else if (!fixture.entity) stateNote = ', state not checked (no entity)';
    else {
      const agent = fixture.agent ?? options.agent;
      try {
        const actual = await readAgentState(options.to, agent, fixture.entity);
        const diff = stateDiff(fixture.expect.state, actual, [...(fixture.expect.ignore ?? []), ...options.ignore]);
        details.push(...diff.map((d) => `state ${d}`));
        stateNote = diff.length === 0 ? ', state as expected' : '';
      } catch (error) {
        details.push(`state: ${(error as Error).message}`);
      }
    }
  }
  return { passed: details.length === 0, line: `${answer.status} in ${answer.ms.toFixed(0)} ms${stateNote}`, details };
}

export async function replay(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = flags(argv);
  if (positionals.length === 0) throw new UsageError('name the fixture files or folders to replay (e.g. .hookbench/fixtures)');
  try {
    if (!/^https?:$/.test(new URL(values.to).protocol)) throw new Error();
  } catch {
    throw new UsageError(`--to ${values.to} is not an http(s) URL`);
  }
  const code = values['expect-status'];
  if (code !== undefined && !/^[1-5]\d\d$/.test(code)) throw new UsageError(`--expect-status ${code} is not an HTTP status`);
  if (!/^[a-z0-9][a-z0-9-]*$/.test(values.agent)) throw new UsageError(`--agent ${values.agent}: give the kebab-case name of /agents/<agent>/<name>`);
  const options: ReplayOptions = { to: values.to, expectStatus: code === undefined ? undefined : Number(code), expectState: values['expect-state'], ignore: values.ignore, agent: values.agent, newIds: values['new-ids'] };

  // Everything is read and every secret found before the first send: a broken suite sends nothing.
  const suite = loadFixtures(positionals);
  const fileVars = envFileVars(values['env-file']);
  const secrets = new Map(suite.map(({ fixture }) => [fixture.provider, providerSecret(fixture.provider, io.env, fileVars)]));
  const width = Math.min(48, Math.max(...suite.map(({ fixture }) => fixture.name.length)));

  let passed = 0;
  let failed = 0;
  for (const { fixture } of suite) {
    let outcome: Outcome;
    try {
      outcome = await runOne(fixture, secrets.get(fixture.provider)!, options);
    } catch (error) {
      outcome = { passed: false, line: 'not sent', details: [(error as Error).message] };
    }
    io.stdout.write(`${outcome.passed ? 'ok  ' : 'FAIL'}  ${fixture.name.padEnd(width)}  ${outcome.line}\n`);
    for (const detail of outcome.details) io.stdout.write(`      ${detail}\n`);
    if (outcome.passed) passed++;
    else failed++;
    if (!outcome.passed && values.bail) break;
  }
  const skipped = suite.length - passed - failed;
  io.stdout.write(`\n${suite.length} fixture${suite.length === 1 ? '' : 's'}: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} not run (--bail)` : ''}\n`);
  return failed === 0 ? 0 : 1;
}
