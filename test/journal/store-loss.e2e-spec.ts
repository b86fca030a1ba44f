import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import request from 'supertest';
import { JournalSweep } from '../../src/journal/journal-sweep';
import { RedisKeys } from '../../src/redis/redis-keys';
import { bookingClient, newGuest, stay } from '../booking/booking-client';
import { CARDS, cardBody, checkoutClient, freshReservation, SCALED_DOWN_WRITES } from '../utils/checkout-client';
import { ManualClock } from '../utils/manual-clock';
import { OwnRedis, startOwnRedis, waitUntil } from '../utils/redis-server';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';
import { startTestApp, TestApp } from '../utils/test-app';
import { testConfig } from '../utils/test-config';

/**
 * docs/write-journal.md, "When Redis loses data": a Redis back empty, or a failover that drops the
 * latest writes, must never let a second card reach a reservation while an earlier attach may still
 * land. Scaled down: a 1 s timeout, a 6 s settle horizon, and the platform acting on the first
 * attach only when the test says (`actNow`).
 */
const ENV = SCALED_DOWN_WRITES;
const ACTS_AFTER_MS = 120_000;

type Site = ReturnType<typeof checkoutClient>;

/** Presses again as the site's client does: after each Retry-After, while the answer says "try again". */
async function pressUntilAnswered(press: () => Promise<request.Response>, within: number): Promise<request.Response> {
  let answer = await press();
  await waitUntil(
    async () => {
      if (!['step_in_progress', 'outcome_pending', 'store_unavailable', 'idempotency_in_progress'].includes(answer.body.code as string))
        return true;
      expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      await new Promise((resolve) => setTimeout(resolve, Number(answer.headers['retry-after']) * 1000));
      answer = await press();
      return false;
    },
    within,
    'an answer that is not "try again"',
  );
  return answer;
}

describe('a Redis that loses data mid-attach never lets a second card through', () => {
  let redis: OwnRedis;
  let world: SandboxedApps;
  const site = (): Site => checkoutClient(world.apps[0].url);
  const attachRequests = () => world.sandbox.control.counters.requests.paymentMethods ?? 0;
  const methodsOn = (guestId: string, reservationId: string) =>
    world.sandbox.control.getPaymentMethods(guestId).filter((method) => method.reservationId === reservationId);

  beforeAll(async () => {
    // No persistence: a restart is an empty Redis.
    redis = await startOwnRedis();
    world = await startSandboxedApps(1, { env: { ...ENV, REDIS_URL: redis.url }, sandbox: { paymentVisibilityDelayMs: 0 } });
  });
  afterEach(() => world.sandbox.control.clearFaults());
  afterAll(async () => {
    await world.close();
    await redis.dispose();
  });

  it('restarted empty while the platform is slow to act: the next card waits for the horizon, then the platform says already paid', async () => {
    const reservation = freshReservation(world, 300);
    const first = (await site().createSession(reservation.reservationId, reservation.guestEmail).expect(201)).body.id as string;
    world.sandbox.control.slowWrite('paymentMethods', { actAfterMs: ACTS_AFTER_MS, answerAfterMs: ACTS_AFTER_MS + 500, times: 1 });
    const acted = world.sandbox.control.whenActed('paymentMethods');
    const pending = await site().submit(first, cardBody(CARDS.noThreeDs), randomUUID());
    expect(pending.body.code).toBe('outcome_pending');

    await redis.stop();
    await redis.start();
    // The guest reopens the checkout: the empty Redis knows no session, no intent, no card.
    let reopened: request.Response | undefined;
    await waitUntil(
      async () => {
        reopened = await site().createSession(reservation.reservationId, reservation.guestEmail);
        return reopened.status === 201;
      },
      10_000,
      'a session on the restarted Redis',
    );
    const second = reopened!.body.id as string;
    const secondKey = randomUUID();
    const held = await site().submit(second, cardBody('5555555555554444'), secondKey);
    expect(held.status).toBe(409);
    expect(held.body.code).toBe('step_in_progress');
    expect(Number(held.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(attachRequests()).toBe(1);

    expect(world.sandbox.control.actNow('paymentMethods')).toBe(1);
    await acted;
    const answered = await pressUntilAnswered(() => site().submit(second, cardBody('5555555555554444'), secondKey), 20_000);
    expect(answered.status).toBe(409);
    expect(answered.body.code).toBe('already_paid');
    expect(methodsOn(reservation.guestId, reservation.reservationId)).toHaveLength(1);
    expect(attachRequests()).toBe(1);
  }, 40_000);
});

describe('a failover that drops the latest writes never lets the same key attach twice (REDIS_WAIT_REPLICAS=auto)', () => {
  let primary: OwnRedis;
  let replica: OwnRedis;
  let world: SandboxedApps;
  const extra: TestApp[] = [];
  const attachRequests = () => world.sandbox.control.counters.requests.paymentMethods ?? 0;

  beforeAll(async () => {
    primary = await startOwnRedis();
    replica = await startOwnRedis({ replicaOf: primary.port });
    world = await startSandboxedApps(1, {
      // The default REDIS_WAIT_REPLICAS (auto): the primary has a replica, so an intent waits for it.
      env: { ...ENV, REDIS_URL: primary.url, REDIS_WAIT_TIMEOUT_MS: '300' },
      sandbox: { paymentVisibilityDelayMs: 0 },
    });
  });
  afterEach(() => world.sandbox.control.clearFaults());
  afterAll(async () => {
    for (const app of extra) await app.close();
    // The first replica's Redis was killed: it closes against one that answers.
    await primary.start();
    await world.close();
    replica.resume();
    await replica.dispose();
    await primary.dispose();
  });

  it('a replica that does not acknowledge the intent: nothing is sent, the answer says try again, and the retry attaches once', async () => {
    const reservation = freshReservation(world, 300);
    const site = checkoutClient(world.apps[0].url);
    const sessionId = (await site.createSession(reservation.reservationId, reservation.guestEmail).expect(201)).body.id as string;
    const key = randomUUID();
    replica.pause();
    const refused = await site.submit(sessionId, cardBody(CARDS.noThreeDs), key);
    replica.resume();
    expect(refused.status).toBe(503);
    expect(refused.body.code).toBe('store_unavailable');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(attachRequests()).toBe(0);
    const paid = await pressUntilAnswered(() => site.submit(sessionId, cardBody(CARDS.noThreeDs), key), 10_000);
    expect(paid.status).toBe(200);
    expect(world.sandbox.control.getPaymentMethods(reservation.guestId)).toHaveLength(1);
  });

  it('the primary dies after the attach left and the replica takes over: the same key finds its intent and sends nothing', async () => {
    const reservation = freshReservation(world, 300);
    const site = checkoutClient(world.apps[0].url);
    const sessionId = (await site.createSession(reservation.reservationId, reservation.guestEmail).expect(201)).body.id as string;
    world.sandbox.control.slowWrite('paymentMethods', { actAfterMs: ACTS_AFTER_MS, answerAfterMs: ACTS_AFTER_MS + 500, times: 1 });
    const acted = world.sandbox.control.whenActed('paymentMethods');
    const key = randomUUID();
    const before = attachRequests();
    const pending = await site.submit(sessionId, cardBody(CARDS.noThreeDs), key);
    expect(pending.body.code).toBe('outcome_pending');
    // What the primary acknowledged before the send is on the replica (the platform has not acted yet): the failover keeps it.
    const onReplica = new Redis(replica.url);
    const intents = await onReplica.keys(`${world.env.REDIS_KEY_PREFIX}{reservation:${reservation.reservationId}}:intent:*`);
    await onReplica.quit();
    expect(intents).toHaveLength(1);
    await primary.stop();
    const promote = new Redis(replica.url);
    await promote.replicaof('NO', 'ONE');
    await promote.quit();
    const survivor = await startTestApp({}, { config: testConfig({ ...world.env, ...ENV, REDIS_URL: replica.url, PORT: '0' }) });
    extra.push(survivor);
    const site2 = checkoutClient(survivor.url);
    const retried = await site2.submit(sessionId, cardBody(CARDS.noThreeDs), key);
    expect({ status: retried.status, body: retried.body }).toMatchObject({
      body: { code: expect.stringMatching(/^(outcome_pending|idempotency_in_progress|step_in_progress)$/) },
    });
    expect(world.sandbox.control.actNow('paymentMethods')).toBe(1);
    await acted;
    const answered = await pressUntilAnswered(() => site2.submit(sessionId, cardBody(CARDS.noThreeDs), key), 20_000);
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({ status: 'succeeded', paymentMethod: { last4: '4242' } });
    expect(world.sandbox.control.getPaymentMethods(reservation.guestId)).toHaveLength(1);
    expect(attachRequests()).toBe(before + 1);
  }, 40_000);
});

describe('a lossy failover under the default setting: the write waits for the replica, so the survivor never takes a second card', () => {
  let primary: OwnRedis;
  let replica: OwnRedis;
  let world: SandboxedApps;
  let survivor: TestApp | undefined;
  const attachRequests = () => world.sandbox.control.counters.requests.paymentMethods ?? 0;

  beforeAll(async () => {
    primary = await startOwnRedis();
    replica = await startOwnRedis({ replicaOf: primary.port });
    world = await startSandboxedApps(1, { env: { ...ENV, REDIS_URL: primary.url }, sandbox: { paymentVisibilityDelayMs: 0 } });
  });
  afterAll(async () => {
    await survivor?.close();
    // The primary was killed: the first replica closes against one that answers.
    await primary.start();
    await world.close();
    await replica.dispose();
    await primary.dispose();
  });

  it('the replica misses the press, the primary dies, and the same key on the promoted replica attaches one card', async () => {
    const reservation = freshReservation(world, 300);
    const site = checkoutClient(world.apps[0].url);
    const sessionId = (await site.createSession(reservation.reservationId, reservation.guestEmail).expect(201)).body.id as string;
    const key = randomUUID();
    // The platform acts on the first attach only when the test says, as a slow platform may.
    world.sandbox.control.slowWrite('paymentMethods', { actAfterMs: ACTS_AFTER_MS, answerAfterMs: ACTS_AFTER_MS + 500, times: 1 });
    const acted = world.sandbox.control.whenActed('paymentMethods');
    // The replica is cut off and promoted while the service still writes to the primary: whatever
    // the press writes there dies with it.
    await replica.follow(null);
    const first = await site.submit(sessionId, cardBody(CARDS.noThreeDs), key);
    await primary.stop();
    survivor = await startTestApp({}, { config: testConfig({ ...world.env, ...ENV, REDIS_URL: replica.url, PORT: '0' }) });
    const press = () => checkoutClient(survivor!.url).submit(sessionId, cardBody(CARDS.noThreeDs), key);
    await press();
    expect(world.sandbox.control.actNow('paymentMethods')).toBe(1);
    await acted;
    const answered = await pressUntilAnswered(press, 20_000);

    expect(world.sandbox.control.getPaymentMethods(reservation.guestId)).toHaveLength(1);
    expect(attachRequests()).toBe(1);
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({ status: 'succeeded', paymentMethod: { last4: '4242' } });
    // The press before the failover was answered "try again", nothing sent, as no replica acknowledged its intent.
    expect(first.status).toBe(503);
    expect(first.body.code).toBe('store_unavailable');
  }, 40_000);
});

describe('a primary read again before its replica is back (a restart, a reconnect): writes still wait for the replica', () => {
  let primary: OwnRedis;
  let replica: OwnRedis;
  let world: SandboxedApps;
  const attachRequests = () => world.sandbox.control.counters.requests.paymentMethods ?? 0;
  const replicasOf = async (redis: Redis) => Number(/^connected_slaves:(\d+)/m.exec(await redis.info('replication'))?.[1]);

  beforeAll(async () => {
    primary = await startOwnRedis();
    replica = await startOwnRedis({ replicaOf: primary.port });
    world = await startSandboxedApps(1, {
      env: { ...ENV, REDIS_URL: primary.url, REDIS_WAIT_TIMEOUT_MS: '300' },
      sandbox: { paymentVisibilityDelayMs: 0 },
    });
  });
  afterAll(async () => {
    await world.close();
    await replica.dispose();
    await primary.dispose();
  });

  it('the service reconnects while the replica is away: the press sends nothing until the replica acknowledges, then attaches once', async () => {
    const reservation = freshReservation(world, 300);
    const site = checkoutClient(world.apps[0].url);
    const sessionId = (await site.createSession(reservation.reservationId, reservation.guestEmail).expect(201)).body.id as string;
    const admin = new Redis(primary.url);
    try {
      // The replica drops away, and the service's connections are cut: it reads the primary again and finds none.
      await replica.follow(null);
      await waitUntil(async () => (await replicasOf(admin)) === 0, 5_000, 'the primary to see no replica');
      const clients = async () =>
        String(await admin.call('CLIENT', 'LIST', 'TYPE', 'normal'))
          .split('\n')
          .filter((line) => line.includes('id='));
      const newest = Math.max(...(await clients()).map((line) => Number(/id=(\d+)/.exec(line)?.[1])));
      await admin.client('KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
      await waitUntil(
        async () => (await clients()).some((line) => Number(/id=(\d+)/.exec(line)?.[1]) > newest && !line.includes('cmd=client')),
        5_000,
        'the service to connect again',
      );
      const key = randomUUID();
      const refused = await site.submit(sessionId, cardBody(CARDS.noThreeDs), key);
      expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 503, code: 'store_unavailable' });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(attachRequests()).toBe(0);
      // The replica is back: the same press attaches one card.
      await replica.follow(primary.port);
      await waitUntil(async () => (await replicasOf(admin)) === 1, 10_000, 'the replica to connect again');
      const paid = await pressUntilAnswered(() => site.submit(sessionId, cardBody(CARDS.noThreeDs), key), 10_000);
      expect({ status: paid.status, session: paid.body.status }).toEqual({ status: 200, session: 'succeeded' });
      expect(attachRequests()).toBe(1);
      expect(world.sandbox.control.getPaymentMethods(reservation.guestId)).toHaveLength(1);
    } finally {
      await admin.quit();
    }
  }, 40_000);
});

describe('REDIS_WAIT_REPLICAS=off and a failover that drops the intent: the card the platform holds is the session’s, never a second', () => {
  let primary: OwnRedis;
  let replica: OwnRedis;
  let world: SandboxedApps;
  let survivor: TestApp | undefined;
  const attachRequests = () => world.sandbox.control.counters.requests.paymentMethods ?? 0;

  beforeEach(async () => {
    primary = await startOwnRedis();
    replica = await startOwnRedis({ replicaOf: primary.port });
    world = await startSandboxedApps(1, {
      env: { ...ENV, REDIS_URL: primary.url, REDIS_WAIT_REPLICAS: 'off' },
      sandbox: { paymentVisibilityDelayMs: 0 },
    });
  });
  afterEach(async () => {
    await survivor?.close();
    survivor = undefined;
    await primary.start();
    await world.close();
    await replica.dispose();
    await primary.dispose();
  });

  /** A session whose press's attach left while its intent was written only to the primary, which then dies; the platform acts after. */
  async function pressLostInFailover(
    opened?: { sessionId: string; guestId: string },
    clock?: ManualClock,
  ): Promise<{ sessionId: string; guestId: string; key: string; site: Site }> {
    const reservation = opened ? undefined : freshReservation(world, 300);
    const sessionId =
      opened?.sessionId ??
      ((await checkoutClient(world.apps[0].url).createSession(reservation!.reservationId, reservation!.guestEmail).expect(201)).body
        .id as string);
    const guestId = opened?.guestId ?? reservation!.guestId;
    world.sandbox.control.slowWrite('paymentMethods', { actAfterMs: ACTS_AFTER_MS, answerAfterMs: ACTS_AFTER_MS + 500, times: 1 });
    const acted = world.sandbox.control.whenActed('paymentMethods');
    await replica.follow(null);
    const key = randomUUID();
    const pending = await checkoutClient(world.apps[0].url).submit(sessionId, cardBody(CARDS.noThreeDs), key);
    expect(pending.body.code).toBe('outcome_pending');
    await primary.stop();
    expect(world.sandbox.control.actNow('paymentMethods')).toBe(1);
    await acted;
    survivor = await startTestApp({}, { config: testConfig({ ...world.env, ...ENV, REDIS_URL: replica.url, PORT: '0' }), clock });
    return { sessionId, guestId, key, site: checkoutClient(survivor.url) };
  }

  it('the same press again: answered succeeded with the card that landed, nothing sent', async () => {
    const { sessionId, guestId, key, site } = await pressLostInFailover();
    const before = attachRequests();
    const again = await pressUntilAnswered(() => site.submit(sessionId, cardBody(CARDS.noThreeDs), key), 20_000);
    const [landed] = world.sandbox.control.getPaymentMethods(guestId);
    expect({ status: again.status, body: again.body }).toMatchObject({
      status: 200,
      body: { status: 'succeeded', paymentMethod: { id: landed._id, last4: '4242' } },
    });
    expect(attachRequests()).toBe(before);
    expect(world.sandbox.control.getPaymentMethods(guestId)).toHaveLength(1);
  }, 40_000);

  it('another card: refused already_paid, and the session shows the card on file instead of asking for one', async () => {
    const { sessionId, guestId, site } = await pressLostInFailover();
    const before = attachRequests();
    const other = await pressUntilAnswered(() => site.submit(sessionId, cardBody('5555555555554444'), randomUUID()), 20_000);
    expect({ status: other.status, code: other.body.code }).toEqual({ status: 409, code: 'already_paid' });
    const [landed] = world.sandbox.control.getPaymentMethods(guestId);
    const view = await site.getSession(sessionId).expect(200);
    expect(view.body).toMatchObject({ status: 'succeeded', paymentMethod: { id: landed._id, last4: '4242' } });
    expect(attachRequests()).toBe(before);
    expect(world.sandbox.control.getPaymentMethods(guestId)).toHaveLength(1);
  }, 40_000);

  it('a booking whose card the survivor finds: confirmed though its first try failed and the store then dropped its due entry', async () => {
    const booking = bookingClient(world.apps[0].url);
    const quote = await booking.quote({ listingId: 'lst-seaside', ...stay(310, 2), guestsCount: 2 }).expect(201);
    const email = `lost-${randomUUID().slice(0, 8)}@example.com`;
    const booked = await booking.book({ quoteId: quote.body.id, guest: { ...newGuest(), email } }).expect(201);
    const reservationId = booked.body.booking.reservationId as string;
    const guestId = world.sandbox.control.getGuestsByEmail(email)[0]._id as string;
    const clock = new ManualClock();
    const { sessionId, key, site } = await pressLostInFailover({ sessionId: booked.body.id as string, guestId }, clock);
    // Only the test sweeps the survivor; both sends of the confirmation's first try fail.
    await survivor!.app.get(JournalSweep).onApplicationShutdown();
    const statusRequests = () => world.sandbox.control.counters.requests.reservationStatus ?? 0;
    const mark = statusRequests();
    world.sandbox.control.forceStatus('reservationStatus', 500, { times: 2 });
    const found = await pressUntilAnswered(() => site.submit(sessionId, cardBody(CARDS.noThreeDs), key), 20_000);
    expect({ status: found.status, state: found.body.status }).toEqual({ status: 200, state: 'succeeded' });
    const admin = new Redis(replica.url);
    try {
      const due = new RedisKeys(world.apps[0].config.redis.keyPrefix).followUps().due;
      const entry = async () => (await admin.zrange(due, 0, -1)).find((member) => member.includes(reservationId));
      // The first try failed and its retry is due 15 s on; then the store drops the entry, as a failover would.
      await waitUntil(
        async () => {
          const member = await entry();
          return statusRequests() - mark >= 2 && !!member && Number(await admin.zscore(due, member)) > clock.now() + 12_000;
        },
        10_000,
        'the confirmation’s first try to fail and wait for its retry',
      );
      await admin.zrem(due, (await entry())!);
      expect(world.sandbox.control.getReservation(reservationId)).toMatchObject({ status: 'reserved' });
      clock.advance(16_000);
      await survivor!.app.get(JournalSweep).sweepOnce();
      await waitUntil(
        () => Promise.resolve(world.sandbox.control.getReservation(reservationId)?.status === 'confirmed'),
        10_000,
        'the booking to be confirmed',
      );
      expect(world.sandbox.control.getPaymentMethods(guestId)).toHaveLength(1);
    } finally {
      await admin.quit();
    }
  }, 60_000);
});
