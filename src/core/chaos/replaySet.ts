/**
 * A shrunk case written as a fixture set of its own (docs/chaos.md, "Replaying a failure"): one
 * fixture per send, numbered in the order sent, each expecting what a clean run of the same
 * deliveries answered and, on the last send to each entity, the state a clean run left. Run with
 * `hookbench replay <folder> --expect-state` against a fresh receiver, it fails while the handler
 * has the bug and passes once it is fixed: a regression test to commit.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { camelCaseToKebabCase } from '../contract/agentsProtocol';
import type { ChaosFailure, ChaosSend } from '../contract/chaos';
import { encodeFixtureBody, fixtureBody, type Fixture, type FixtureExpect } from '../contract/fixtures';
import { writeFixtureFile } from '../fixtures/fixtureFiles';
import { asNewDelivery } from '../payloads';
import { STALE_MARGIN_SECONDS } from './perturbations';
import { PROVIDER_BEHAVIOUR } from './providerBehaviour';
import type { RunResult } from './runner';
import type { NoiseMask, Snapshot } from './snapshot';
import type { ChaosDelivery } from './suite';

/** The folder a case goes to: `<suite>/.chaos/<perturbation>-<seed>` (a dot folder: replaying the suite skips it). */
export function replayFolder(suite: string, failure: Pick<ChaosFailure, 'perturbation' | 'seed'>): string {
  return path.join(suite, '.chaos', `${failure.perturbation}-${failure.seed}`);
}

const SUFFIX: Readonly<Record<ChaosSend['kind'], string>> = { delivery: '', redelivery: '-redelivery', retry: '-retry', stale: '-stale' };

function fileName(position: number, send: ChaosSend): string {
  const suffix = `${SUFFIX[send.kind]}${send.kind === 'retry' ? send.attempt : ''}`;
  // The case's own numbering replaces the suite's (`02-refund` sent first is `01-refund`).
  return `${String(position).padStart(2, '0')}-${send.fixture.replace(/^\d+-/, '')}`.slice(0, 100 - suffix.length) + suffix;
}

/** The instance a delivery reached, among those the clean run left: its `entity`, else the one its grouping key names. */
function instanceOf(delivery: ChaosDelivery, snapshot: Snapshot): string | undefined {
  const keys = Object.keys(snapshot);
  const wanted = (delivery.fixture.entity ?? delivery.entity).replace(/\//g, '-').toLowerCase();
  return keys.find((key) => key.slice(key.indexOf('/') + 1).toLowerCase() === wanted) ?? (keys.length === 1 ? keys[0] : undefined);
}

/** A noise path of a state, as `expect.ignore` names it. */
function ignoredPaths(mask: NoiseMask, instance: string): string[] {
  return mask.entries.filter((e) => e.entity === instance && e.part === 'state').map((e) => e.path);
}

export interface ReplayInput {
  readonly suite: string;
  readonly failure: Pick<ChaosFailure, 'perturbation' | 'seed' | 'sends'>;
  readonly deliveries: readonly ChaosDelivery[];
  /** The clean run of the case's deliveries: what each answered and the state it left. */
  readonly clean: RunResult;
  readonly mask: NoiseMask;
}

/** Writes the set (replacing an earlier one of the same perturbation and seed); answers its folder. */
export function writeReplaySet({ suite, failure, deliveries, clean, mask }: ReplayInput): string {
  const folder = replayFolder(suite, failure);
  fs.rmSync(folder, { recursive: true, force: true });
  const byFile = new Map(deliveries.map((d) => [d.file, d]));
  const cleanStatus = new Map(clean.sends.map((send) => [send.file, send.status]));
  const lastFor = new Map<string, number>();
  failure.sends.forEach((send, i) => {
    const instance = send.kind === 'stale' ? undefined : instanceOf(byFile.get(send.file)!, clean.snapshot);
    if (instance) lastFor.set(instance, i);
  });
  const bursts = new Set(failure.sends.filter((s, _i, all) => all.filter((o) => o.step === s.step).length > 1).map((s) => s.step));
  failure.sends.forEach((send, i) => {
    const delivery = byFile.get(send.file)!;
    const instance = [...lastFor].find(([, last]) => last === i)?.[0];
    const status = cleanStatus.get(send.file);
    const expect: FixtureExpect = {
      ...(send.kind === 'stale' ? { refused: true as const } : status === undefined ? {} : { status }),
      ...(instance ? { state: clean.snapshot[instance]!.state ?? null } : {}),
      ...(instance && ignoredPaths(mask, instance).length > 0 ? { ignore: ignoredPaths(mask, instance) } : {}),
    };
    const fixture: Fixture = {
      ...withoutChaosFields(delivery.fixture),
      name: fileName(i + 1, send),
      ...(instance ? { agent: camelCaseToKebabCase(instance.slice(0, instance.indexOf('/'))), entity: instance.slice(instance.indexOf('/') + 1) } : {}),
      ...(send.kind === 'stale' ? staleCopy(delivery.fixture, send.deliveryId!) : {}),
      expect,
      ...(bursts.has(send.step) ? { burst: send.step } : {}),
    };
    writeFixtureFile(suite, folder, fixture, { overwrite: true });
  });
  return folder;
}

function withoutChaosFields(fixture: Fixture): Fixture {
  const { burst: _burst, signedAgo: _signedAgo, expect: _expect, ...rest } = fixture;
  return rest;
}

/** The stale copy as sent: its own delivery id, signed past the provider's tolerance. */
function staleCopy(fixture: Fixture, id: string): Pick<Fixture, 'request' | 'signedAgo'> {
  const copy = asNewDelivery(fixture.provider, { ...fixture.request.headers }, fixtureBody(fixture.request), () => id);
  const tolerance = PROVIDER_BEHAVIOUR[fixture.provider].toleranceSeconds ?? 0;
  return { request: { ...fixture.request, headers: copy.headers, ...encodeFixtureBody(copy.body) }, signedAgo: tolerance + STALE_MARGIN_SECONDS };
}
