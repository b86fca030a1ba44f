import { runCampaign } from '../../chaos/campaign';
import { campaignTable, violationLines } from '../../chaos/table';
import { type ChaosWorld, startChaosWorld } from '../../chaos/world';
import { figures } from '../utils/load';
import { BUILT_MAIN } from '../utils/service-process';

/**
 * docs/product-spec.md §6 under a seeded random schedule of faults (docs/write-journal.md): three
 * replicas of the built service, a Redis primary and replica of the campaign's own and the sandbox, whose record
 * is the judge. A few fixed seeds run here; `npm run chaos` runs long campaigns. A failing seed
 * replays its schedule: `npm run chaos -- --operations N --seed S --trace`.
 */
// Chosen for their schedules, not their outcomes: eight operations of every kind, with duplicate
// submissions; 43 and 1609 bring a late attach, a frozen and a killed replica and a duplicate 3-D
// Secure return early, 6009 and 10382 a Redis back empty and a failover that drops the latest writes
// within their first four steps.
const SEEDS: [seed: number, operations: number][] = [
  [43, 8],
  [1609, 8],
  [6009, 8],
  [10382, 8],
];

describe('randomized fault campaign: checkouts, 3-D Secure, bookings, replacement cards and extras on three replicas', () => {
  let world: ChaosWorld;

  beforeAll(async () => {
    world = await startChaosWorld({ mainScript: BUILT_MAIN });
  }, 120_000);

  afterAll(() => world?.close(), 60_000);

  it.each(SEEDS)(
    "seed %i, %i operations: every invariant holds against the platform's record",
    async (seed, operations) => {
      const report = await runCampaign(world, { seed, operations });
      figures(`fault campaign\n${campaignTable(report)}`);
      expect(violationLines(report)).toEqual([]);
      expect(report.operations).toBe(operations);
    },
    120_000,
  );
});
