import { randomBytes, randomUUID } from 'node:crypto';
import { startBenchWorld } from './bench-world';

const ROUNDS = 20;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/**
 * Ids cannot be probed (docs/product-spec.md §7): the time and the platform calls of a session open
 * on an existing id with a wrong email, and on a made-up id, taken in turns on one instance (sandbox
 * latency 50 ms, limits no run meets), before and after the service recorded the guest's email.
 */
export async function probedIdRows(): Promise<[string, string][]> {
  const world = await startBenchWorld(1, {
    env: {
      CHECKOUT_IP_RATE_LIMIT: '100000/m',
      CHECKOUT_RESERVATION_MISSES_PER_IP: '100000/h',
      UPSTREAM_RATE_LIMITS: '1000/s,60000/m,1000000/h',
    },
    sandbox: { latencyMs: 50, rateLimits: { perSecond: 1000, perMinute: 60_000, perHour: 1_000_000 } },
  });
  try {
    const { control } = world.sandbox;
    const url = world.instances[0].url;
    const open = async (reservationId: string, email: string) => {
      const from = control.requestLog.length;
      const started = performance.now();
      const answer = await fetch(`${url}/checkout/sessions`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ reservationId, email }),
      });
      await answer.arrayBuffer();
      return { ms: performance.now() - started, calls: control.requestLog.length - from, status: answer.status };
    };
    const fresh = () =>
      control.createReservation({
        listingId: 'lst-seaside',
        guestEmail: `probe-${randomUUID().slice(0, 8)}@example.com`,
        balanceDue: 100,
        currency: 'USD',
      });
    const madeUp = () => `res-${randomBytes(9).toString('base64url')}`;
    // The token minted and the provider read once, before anything is measured.
    await open(fresh().reservationId, 'warm-up@example.com');
    const runs = { unrecorded: [] as Run[], recorded: [] as Run[], madeUp: [] as Run[] };
    type Run = Awaited<ReturnType<typeof open>>;
    for (let round = 0; round < ROUNDS; round += 1) {
      const { reservationId } = fresh();
      // In turns, each first half the time, so a drift of the machine weighs on both alike.
      const pair = [() => open(reservationId, `wrong-${round}@example.com`), () => open(madeUp(), `wrong-${round}@example.com`)];
      const [first, second] = round % 2 ? [pair[1], pair[0]] : pair;
      const a = await first();
      const b = await second();
      runs.unrecorded.push(round % 2 ? b : a);
      runs.madeUp.push(round % 2 ? a : b);
      runs.recorded.push(await open(reservationId, `other-${round}@example.com`));
    }
    const figure = (list: Run[]) =>
      `median ${median(list.map((run) => run.ms)).toFixed(0)} ms, ${median(list.map((run) => run.calls))} platform calls, statuses ${[...new Set(list.map((run) => run.status))].join('/')}`;
    return [
      [`session open, an existing id with a wrong email, first lookup (${ROUNDS}×)`, figure(runs.unrecorded)],
      [`session open, an existing id with a wrong email, its guest's email recorded (${ROUNDS}×)`, figure(runs.recorded)],
      [`session open, a made-up id (${ROUNDS}×; goal: as the two above)`, figure(runs.madeUp)],
    ];
  } finally {
    await world.close();
  }
}
