/**
 * A fixture set as the chaos engine sees it: each delivery with the entity it is about (what
 * `reorder` and `concurrent` group by) and its delivery id (what a redelivery keeps).
 */
import * as path from 'node:path';
import { fixtureBody, type Fixture } from '../contract/fixtures';
import type { FixtureFile } from '../fixtures/fixtureFiles';
import { locate, normalizeHeaders, parsedBody, schemeFor } from '../signing';

export interface ChaosDelivery {
  /** Its place in the suite, from 0. */
  readonly index: number;
  readonly fixture: Fixture;
  /** Its file, relative to the suite's folder. */
  readonly file: string;
  /**
   * What it is about: the fixture's `entity`, else what the provider's payload or headers name
   * (a repository, a customer, a shop), else its path. Deliveries with the same one are reordered
   * and sent at once among themselves.
   */
  readonly entity: string;
  readonly deliveryId: string | undefined;
}

export function chaosSuite(files: readonly FixtureFile[], root: string): ChaosDelivery[] {
  return files.map(({ file, fixture }, index) => {
    const { shape } = schemeFor(fixture.provider);
    const headers = normalizeHeaders(Object.entries(fixture.request.headers));
    const payload = parsedBody(fixtureBody(fixture.request));
    return {
      index,
      fixture,
      file: path.relative(root, file) || path.basename(file),
      entity: fixture.entity ?? locate(shape.entity, headers, payload) ?? fixture.request.path,
      deliveryId: locate(shape.deliveryId, headers, payload),
    };
  });
}

/** The deliveries of each entity, in the suite's order. */
export function byEntity(deliveries: readonly ChaosDelivery[]): ChaosDelivery[][] {
  const groups = new Map<string, ChaosDelivery[]>();
  for (const delivery of deliveries) groups.set(delivery.entity, [...(groups.get(delivery.entity) ?? []), delivery]);
  return [...groups.values()];
}
