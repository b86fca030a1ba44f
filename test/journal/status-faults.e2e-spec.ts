import { JournalSweep } from '../../src/journal/journal-sweep';
import { bookingClient, newGuest, stay } from '../booking/booking-client';
import { CARDS, cardBody, checkoutClient, SCALED_DOWN_WRITES } from '../utils/checkout-client';
import { waitUntil } from '../utils/redis-server';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';

/**
 * docs/product-spec.md §6 for a paid booking's confirmation (a repeatable status write): answered
 * after our timeout while the platform acts, and tried by two replicas at once. It ends `confirmed`,
 * its session says so, nothing is left due. A 1 s timeout and lease; the horizon at its default.
 */
const ENV = { ...SCALED_DOWN_WRITES, WRITE_SETTLE_SECONDS: '120' };

describe('a paid booking’s confirmation under faults of its own', () => {
  let world: SandboxedApps;
  const statusWrites = () => world.sandbox.control.requestLog.filter((entry) => entry.route === 'reservationStatus').length;
  const statusRequests = () => world.sandbox.control.counters.requests.reservationStatus ?? 0;

  beforeAll(async () => {
    world = await startSandboxedApps(2, { env: ENV, sandbox: { paymentVisibilityDelayMs: 0 } });
    // The sweeps run only when a test says: what confirms a booking here is its request's own tries.
    for (const app of world.apps) await app.app.get(JournalSweep).onApplicationShutdown();
  });
  afterEach(() => world.sandbox.control.clearFaults());
  afterAll(() => world.close());

  async function paidBooking(offsetDays: number, before: () => void): Promise<{ sessionId: string; reservationId: string }> {
    const booking = bookingClient(world.apps[0].url);
    const quote = await booking.quote({ listingId: 'lst-seaside', ...stay(offsetDays, 2), guestsCount: 2 }).expect(201);
    const booked = await booking.book({ quoteId: quote.body.id, guest: newGuest() }).expect(201);
    before();
    await booking.submit(booked.body.id as string, cardBody(CARDS.noThreeDs)).expect(200);
    return { sessionId: booked.body.id as string, reservationId: booked.body.booking.reservationId as string };
  }

  async function confirmedEverywhere(sessionId: string, reservationId: string): Promise<void> {
    await waitUntil(
      async () => (await checkoutClient(world.apps[1].url).getSession(sessionId)).body.booking?.status === 'confirmed',
      20_000,
      'the session to show the booking confirmed',
    );
    expect(world.sandbox.control.getReservation(reservationId)).toMatchObject({ status: 'confirmed' });
    const due = [...(await world.apps[0].redisContents()).entries()].filter(([key]) => key.endsWith('follow-ups:due'));
    expect(due.flatMap(([, members]) => members.split('\n')).filter((member) => member.includes(reservationId))).toEqual([]);
  }

  it.each([
    // The platform acts before our timeout ends the wait: the status read after it finds the change.
    ['acted before our timeout', 200, 1],
    // The platform acts after the read that follows our timeout: the write is repeatable, sent again at once.
    ['acted after the read that follows our timeout', 1_600, 2],
  ])(
    'answered after our timeout, %s: confirmed by its own request, no sweep and no horizon waited, the status set once more at most',
    async (_case, actAfterMs, mostRequests) => {
      const mark = statusRequests();
      const acted = world.sandbox.control.whenActed('reservationStatus');
      const { sessionId, reservationId } = await paidBooking(actAfterMs === 200 ? 220 : 224, () =>
        world.sandbox.control.slowWrite('reservationStatus', { actAfterMs, answerAfterMs: 3_000, times: 1 }),
      );
      await acted;
      await confirmedEverywhere(sessionId, reservationId);
      expect(statusRequests() - mark).toBeGreaterThanOrEqual(1);
      expect(statusRequests() - mark).toBeLessThanOrEqual(mostRequests);
      // The slow first try still owes its answer: the next test begins once the platform gave it.
      await waitUntil(() => Promise.resolve(statusWrites() === statusRequests()), 10_000, 'the slow first try to be answered');
    },
    40_000,
  );

  it('tried by two replicas at once (the request’s own try still on its way when another replica’s sweep finds it due): one status write', async () => {
    const mark = statusRequests();
    const answeredBefore = statusWrites();
    const acted = world.sandbox.control.whenActed('reservationStatus');
    const { sessionId, reservationId } = await paidBooking(228, () => world.sandbox.control.setRouteDelay('reservationStatus', 800));
    // The first replica's try is at the platform; the second replica's clock passes the follow-up's grace and sweeps.
    await waitUntil(() => Promise.resolve(statusRequests() > mark), 10_000, 'the first try to reach the platform');
    world.clocks[1].advance(15_000);
    await world.apps[1].app.get(JournalSweep).sweepOnce();
    await acted;
    await confirmedEverywhere(sessionId, reservationId);
    expect(statusRequests() - mark).toBe(1);
    expect(statusWrites() - answeredBefore).toBe(1);
  }, 40_000);
});
