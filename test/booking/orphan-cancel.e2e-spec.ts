import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { FOLLOW_UP_GRACE_MS } from '../../src/journal/follow-ups';
import { RequestLimits } from '../../src/common/abuse/request-limits';
import { JournalSweep } from '../../src/journal/journal-sweep';
import { RedisKeys } from '../../src/redis/redis-keys';
import { killableReplicas } from '../utils/killable-replicas';
import { waitUntil } from '../utils/redis-server';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';
import { testRedisUrl } from '../utils/test-config';
import { bookingClient, newGuest, stay } from './booking-client';

/** The listing booked here and the payment account (provider) its cards are paid with (sandbox fixtures). */
const LISTING = 'lst-seaside';
const PROVIDER = 'pp-seaside';
/**
 * A budget the bookings here cannot exhaust: a guest's writes follow one another unspaced, and the
 * bookings back to back would meet the anonymous share's wait (503 rate_limited) at the platform's 15/s.
 */
const PLENTY = {
  env: { UPSTREAM_RATE_LIMITS: '100/s,6000/m,100000/h' },
  sandbox: { rateLimits: { perSecond: 100, perMinute: 6000, perHour: 100000 } },
};
/** Longer than a replica keeps its own copy of a listing's payment provider (a minute). */
const PAST_LOCAL_COPY_MS = 61_000;

/** The service's cached reads of the account run out (its own copy after a minute, the shared one after five). */
async function forgetProvider(world: SandboxedApps, redis: Redis): Promise<void> {
  world.clocks[0].advance(PAST_LOCAL_COPY_MS);
  await redis.del(new RedisKeys(world.apps[0].config.redis.keyPrefix).cache('provider', LISTING));
}

/**
 * A booking whose payment account goes offline while the platform makes its reservation, `fault`
 * set on the request's own cancel: answered 502 payment_account_unavailable, it names the reservation made.
 */
async function orphaned(world: SandboxedApps, redis: Redis, offsetDays: number, fault: () => void): Promise<string> {
  const control = world.sandbox.control;
  // The account is back, and no copy of an earlier INACTIVE read is left.
  control.setProviderStatus(PROVIDER, 'ACTIVE');
  await forgetProvider(world, redis);
  const site = bookingClient(world.apps[0].url);
  const quote = await site.quote({ listingId: LISTING, ...stay(offsetDays, 2), guestsCount: 2 }).expect(201);
  const guest = newGuest();
  const creates = control.counters.requests.reservationFromQuote ?? 0;
  control.slowWrite('reservationFromQuote', { actAfterMs: 60_000, times: 1 });
  const answer = site.book({ quoteId: quote.body.id, guest }, randomUUID()).then((response) => response);
  await waitUntil(
    () => Promise.resolve((control.counters.requests.reservationFromQuote ?? 0) > creates),
    10_000,
    'the create to reach the platform',
  );
  control.setProviderStatus(PROVIDER, 'INACTIVE');
  await forgetProvider(world, redis);
  fault();
  control.actNow('reservationFromQuote');
  expect((await answer).body.code).toBe('payment_account_unavailable');
  const [booked] = control.getGuestsByEmail(guest.email);
  return control.getGuestReservations(booked._id as string)[0]._id;
}

/**
 * Sweeps on the first replica, its clock moved 5 s at a time, until the reservation is canceled:
 * within 30 s of that clock, one status change (the cut first try never reached the platform).
 */
async function canceledWithinHalfAMinute(world: SandboxedApps, reservationId: string, mark: number, tries = [0, 200]): Promise<void> {
  const control = world.sandbox.control;
  let moved = 0;
  await waitUntil(
    async () => {
      await world.apps[0].app.get(JournalSweep).sweepOnce();
      if (control.getReservation(reservationId)?.status === 'canceled') return true;
      world.clocks[0].advance(5_000);
      moved += 5_000;
      return moved > 30_000;
    },
    30_000,
    "the sweep's cancel",
  );
  expect(moved).toBeLessThanOrEqual(30_000);
  expect(control.getReservation(reservationId)).toMatchObject({ status: 'canceled' });
  const cancels = control.requestLog.slice(mark).filter((entry) => entry.route === 'reservationStatus');
  expect(cancels.map((entry) => entry.status)).toEqual(tries);
}

/**
 * docs/product-spec.md §3.1: the payment account is checked before anything is created, but it can
 * go offline while the reservation is being made. A reservation no session can follow must not hold
 * the dates for nobody: it is canceled through the journal's reservation-status kind.
 */
describe('booking: a reservation whose session cannot follow is canceled', () => {
  let world: SandboxedApps;
  let redis: Redis;

  beforeAll(async () => {
    world = await startSandboxedApps(1, {
      env: { CHECKOUT_IP_RATE_LIMIT: '10000/m', BOOKING_HOLDS_PER_IP: '1000/h', CHECKOUT_IP_READ_LIMIT: '10000/m', ...PLENTY.env },
      sandbox: { paymentVisibilityDelayMs: 0, ...PLENTY.sandbox },
    });
    redis = new Redis(testRedisUrl());
  });

  afterAll(async () => {
    redis.disconnect();
    await world.close();
  });

  it('the account goes offline while the platform makes the reservation: 502 payment_account_unavailable, and the reservation is canceled on the platform', async () => {
    const control = world.sandbox.control;
    const site = bookingClient(world.apps[0].url);
    const quote = await site.quote({ listingId: LISTING, ...stay(70, 2), guestsCount: 2 }).expect(201);
    const guest = newGuest();

    // The platform holds the create until the test lets it act: the account was checked, ACTIVE, before it left.
    control.slowWrite('reservationFromQuote', { actAfterMs: 60_000, times: 1 });
    const answer = site.book({ quoteId: quote.body.id, guest }, randomUUID()).then((response) => response);
    await waitUntil(
      () => Promise.resolve((control.counters.requests.reservationFromQuote ?? 0) > 0),
      10_000,
      'the create to reach the platform',
    );

    // Meanwhile the account goes offline, and the service's cached read of it runs out (its own copy
    // after a minute, the shared one after five: here removed as its five minutes would).
    control.setProviderStatus(PROVIDER, 'INACTIVE');
    await forgetProvider(world, redis);
    control.actNow('reservationFromQuote');

    const refused = await answer;
    expect(refused.status).toBe(502);
    expect(refused.body.code).toBe('payment_account_unavailable');
    const [booked] = control.getGuestsByEmail(guest.email);
    const reservations = control.getGuestReservations(booked._id as string);
    expect(reservations).toHaveLength(1);
    expect(reservations[0].status).toBe('canceled');
    expect(control.counters.requests.reservationStatus).toBe(1);
  });

  it('a cancel the platform drops is kept in Redis and carried out by the sweep', async () => {
    const control = world.sandbox.control;
    // The request's own cancel fails at the platform, and so does the one it sends again at once.
    const reservationId = await orphaned(world, redis, 80, () => control.forceStatus('reservationStatus', 503, { times: 2 }));
    expect(control.getReservation(reservationId)).toMatchObject({ status: 'reserved' });

    await waitUntil(
      async () => {
        world.clocks[0].advance(FOLLOW_UP_GRACE_MS + 6_000);
        await world.apps[0].app.get(JournalSweep).sweepOnce();
        return control.getReservation(reservationId)?.status === 'canceled';
      },
      20_000,
      "the sweep's cancel",
    );
    const dueLeft = await redis.zcard(new RedisKeys(world.apps[0].config.redis.keyPrefix).followUps().due);
    expect(dueLeft).toBe(0);
  });
});

/**
 * The orphan cancel under the faults every upstream write meets (docs/product-spec.md §6): the
 * platform acts but its answer is lost, or it acts after the service stopped waiting. Either way
 * the reservation ends canceled, and exactly one cancel reaches the platform.
 */
describe('booking: an orphan cancel whose answer is lost or late is sent once', () => {
  let world: SandboxedApps;
  let redis: Redis;

  beforeAll(async () => {
    world = await startSandboxedApps(1, {
      env: {
        CHECKOUT_IP_RATE_LIMIT: '10000/m',
        BOOKING_HOLDS_PER_IP: '1000/h',
        CHECKOUT_IP_READ_LIMIT: '10000/m',
        UPSTREAM_TIMEOUT_MS: '1000',
        UPSTREAM_DEADLINE_MS: '1500',
        ...PLENTY.env,
      },
      sandbox: { paymentVisibilityDelayMs: 0, ...PLENTY.sandbox },
    });
    redis = new Redis(testRedisUrl());
  });

  afterAll(async () => {
    redis.disconnect();
    await world.close();
  });

  /** Sweeps, moving the clock past the follow-up's grace, until the reservation's follow-up is done. */
  async function sweptUntilDone(reservationId: string): Promise<void> {
    const due = new RedisKeys(world.apps[0].config.redis.keyPrefix).followUps().due;
    await waitUntil(
      async () => {
        world.clocks[0].advance(FOLLOW_UP_GRACE_MS + 6_000);
        await world.apps[0].app.get(JournalSweep).sweepOnce();
        return (await redis.zrange(due, 0, -1)).every((member) => !member.includes(reservationId));
      },
      30_000,
      "the sweep to finish the reservation's cancel",
    );
  }

  it("gives the booking's hold back to its network once the orphan is canceled: the network's count says what waits for payment", async () => {
    const keys = new RedisKeys(world.apps[0].config.redis.keyPrefix);
    const network = world.apps[0].app.get(RequestLimits).holdNetworkOf('127.0.0.1');
    const holds = keys.requestLimit('booking-holds', network, true).window;
    const before = await redis.zcard(holds);
    const reservationId = await orphaned(world, redis, 110, () => undefined);
    expect(world.sandbox.control.getReservation(reservationId)).toMatchObject({ status: 'canceled' });
    expect(await redis.zcard(holds)).toBe(before);
  });

  it('the platform cancels but the answer is lost: the sweep finds it canceled and sends nothing again', async () => {
    const control = world.sandbox.control;
    const before = control.counters.requests.reservationStatus ?? 0;
    const reservationId = await orphaned(world, redis, 90, () =>
      control.dropConnection('reservationStatus', { times: 1, afterHandling: true }),
    );
    expect(control.getReservation(reservationId)).toMatchObject({ status: 'canceled' });
    await sweptUntilDone(reservationId);
    expect(control.getReservation(reservationId)).toMatchObject({ status: 'canceled' });
    expect((control.counters.requests.reservationStatus ?? 0) - before).toBe(1);
  });

  it('the first cancel is cut before the platform acts: its request reads the reservation still held and sends it again at once', async () => {
    const control = world.sandbox.control;
    const mark = control.requestLog.length;
    const reservationId = await orphaned(world, redis, 120, () => control.dropConnection('reservationStatus', { times: 1 }));
    expect(control.getReservation(reservationId)).toMatchObject({ status: 'canceled' });
    const cancels = control.requestLog.slice(mark).filter((entry) => entry.route === 'reservationStatus');
    expect(cancels.map((entry) => entry.status)).toEqual([0, 200]);
    await sweptUntilDone(reservationId);
  });

  it('the first cancel and its resend both cut: the sweep sends it within 30 s, without waiting out the settle horizon', async () => {
    const control = world.sandbox.control;
    const mark = control.requestLog.length;
    const reservationId = await orphaned(world, redis, 122, () => control.dropConnection('reservationStatus', { times: 2 }));
    expect(control.getReservation(reservationId)).toMatchObject({ status: 'reserved' });
    await canceledWithinHalfAMinute(world, reservationId, mark, [0, 0, 200]);
  });

  it('the platform cancels after the service stopped waiting: sent again at once, the late cancel changes nothing', async () => {
    const control = world.sandbox.control;
    const before = control.counters.requests.reservationStatus ?? 0;
    const reservationId = await orphaned(world, redis, 100, () => control.slowWrite('reservationStatus', { actAfterMs: 60_000, times: 1 }));
    // The request stopped waiting for its cancel, read the reservation still held and, a status set
    // twice being one change, sent it again at once: the dates are free before the platform's late act.
    expect(control.getReservation(reservationId)).toMatchObject({ status: 'canceled' });
    await sweptUntilDone(reservationId);
    expect((control.counters.requests.reservationStatus ?? 0) - before).toBe(2);
    const late = control.whenActed('reservationStatus');
    control.actNow('reservationStatus');
    // The platform refuses a status change on a canceled reservation: the late cancel is no second change.
    expect((await late).map((acted) => acted.status)).toEqual([422]);
    expect(control.getReservation(reservationId)).toMatchObject({ status: 'canceled' });
  });
});

/**
 * The orphan cancel is a follow-up kept in Redis before its first try: the replica that met the
 * orphan is killed (SIGKILL) after its cancel was cut, and another replica's sweep cancels it within
 * 30 s of its clock (the settle horizon kept at its default), one status change on the platform.
 */
describe('booking: an orphan cancel cut with its replica killed', () => {
  const replicas = killableReplicas({
    CHECKOUT_IP_RATE_LIMIT: '10000/m',
    BOOKING_HOLDS_PER_IP: '1000/h',
    CHECKOUT_IP_READ_LIMIT: '10000/m',
    UPSTREAM_TIMEOUT_MS: '1000',
    UPSTREAM_DEADLINE_MS: '1500',
  });
  let redis: Redis;

  beforeAll(() => {
    redis = new Redis(testRedisUrl());
  });
  afterAll(() => redis.disconnect());

  it('another replica cancels it within 30 s, one status change', async () => {
    const world = replicas.world();
    const control = world.sandbox.control;
    const site = bookingClient(world.apps[0].url);
    const quote = await site.quote({ listingId: LISTING, ...stay(130, 2), guestsCount: 2 }).expect(201);
    const guest = newGuest();
    const key = randomUUID();
    // The platform makes the reservation after the first replica stopped waiting: its answer is pending.
    control.slowWrite('reservationFromQuote', { actAfterMs: 60_000, times: 1 });
    expect((await site.book({ quoteId: quote.body.id, guest }, key)).body.code).toBe('outcome_pending');
    control.actNow('reservationFromQuote');
    // Meanwhile the account went offline, and no replica keeps a copy of its earlier read.
    control.setProviderStatus(PROVIDER, 'INACTIVE');
    await redis.del(new RedisKeys(world.apps[0].config.redis.keyPrefix).cache('provider', LISTING));

    // The same key on a fresh replica finds the reservation, cannot open its session, and its cancel is cut.
    const doomed = await replicas.doomedReplica();
    const mark = control.requestLog.length;
    // Its cancel and the one it sends again at once are both cut.
    control.dropConnection('reservationStatus', { times: 2 });
    expect((await bookingClient(doomed.url).book({ quoteId: quote.body.id, guest }, key)).body.code).toBe('payment_account_unavailable');
    doomed.child.kill('SIGKILL');
    await doomed.exited;
    const [booked] = control.getGuestsByEmail(guest.email);
    const reservationId = control.getGuestReservations(booked._id as string)[0]._id;
    expect(control.getReservation(reservationId)).toMatchObject({ status: 'reserved' });

    await canceledWithinHalfAMinute(world, reservationId, mark, [0, 0, 200]);
  }, 90_000);
});
