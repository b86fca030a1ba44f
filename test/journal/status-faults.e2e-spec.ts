import { JournalSweep } from '../../src/journal/journal-sweep';
import { bookingClient, newGuest, stay } from '../booking/booking-client';
import { CARDS, cardBody, checkoutClient, SCALED_DOWN_WRITES } from '../utils/checkout-client';
import { OwnRedis, startOwnRedis, waitUntil } from '../utils/redis-server';
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

describe('a paid booking’s confirmation while Redis goes away', () => {
  let redis: OwnRedis;
  let world: SandboxedApps;
  const statusRequests = () => world.sandbox.control.counters.requests.reservationStatus ?? 0;

  beforeAll(async () => {
    // Persistent: a Redis stopped and started again comes back with what it acknowledged.
    redis = await startOwnRedis({ persistent: true });
    world = await startSandboxedApps(1, {
      env: { ...SCALED_DOWN_WRITES, REDIS_URL: redis.url, WRITE_HOLD_ON_NEW_STORE: 'false' },
      sandbox: { paymentVisibilityDelayMs: 0 },
    });
  });
  afterEach(() => world.sandbox.control.clearFaults());
  afterAll(async () => {
    await world.close();
    await redis.dispose();
  });

  it.each([
    ['stopped and started again with its data', (own: OwnRedis) => own.stop(), (own: OwnRedis) => own.start(), 232],
    ['back empty', (own: OwnRedis) => own.restartEmpty(), () => Promise.resolve(), 236],
  ])(
    'Redis %s while the confirmation is at the platform: confirmed once, and the session says so where it survived',
    async (_case, down, up, offsetDays) => {
      const booking = bookingClient(world.apps[0].url);
      const quote = await booking.quote({ listingId: 'lst-seaside', ...stay(offsetDays, 2), guestsCount: 2 }).expect(201);
      const booked = await booking.book({ quoteId: quote.body.id, guest: newGuest() }).expect(201);
      const reservationId = booked.body.booking.reservationId as string;
      const mark = statusRequests();
      // The platform acts on the confirmation after Redis went away, and answers after it is back.
      world.sandbox.control.slowWrite('reservationStatus', { actAfterMs: 400, answerAfterMs: 800, times: 1 });
      const arrived = waitUntil(() => Promise.resolve(statusRequests() > mark), 10_000, 'the confirmation to reach the platform');
      await booking.submit(booked.body.id as string, cardBody(CARDS.noThreeDs)).expect(200);
      await arrived;
      await down(redis);
      await world.sandbox.control.whenActed('reservationStatus');
      await up(redis);
      await waitUntil(
        () => Promise.resolve(world.sandbox.control.getReservation(reservationId)?.status === 'confirmed'),
        20_000,
        'the booking to be confirmed',
      );
      // Whatever the journal kept, nothing sends the status again: the next tries read it confirmed.
      await waitUntil(
        async () => {
          const due = [...(await world.apps[0].redisContents()).entries()].filter(([key]) => key.endsWith('follow-ups:due'));
          return due.flatMap(([, members]) => members.split('\n')).every((member) => !member.includes(reservationId));
        },
        40_000,
        'no confirmation left due',
      );
      // The replica's remembered follow-ups and its sweep, past any retry's wait: each reads the status, none sends it.
      for (let pass = 0; pass < 2; pass += 1) {
        world.clocks[0].advance(20_000);
        await world.apps[0].app.get(JournalSweep).sweepOnce();
      }
      expect(statusRequests() - mark).toBe(1);
      const session = await checkoutClient(world.apps[0].url).getSession(booked.body.id as string);
      if (_case === 'back empty') expect(session.status).toBe(404);
      else expect(session.body.booking?.status).toBe('confirmed');
    },
    80_000,
  );
});
