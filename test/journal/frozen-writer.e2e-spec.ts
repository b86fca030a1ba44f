import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import request from 'supertest';
import { FOLLOW_UP_GRACE_MS } from '../../src/journal/follow-ups';
import { JournalSweep } from '../../src/journal/journal-sweep';
import { RedisKeys } from '../../src/redis/redis-keys';
import { bookingClient, newGuest, stay } from '../booking/booking-client';
import { CARDS, cardBody, checkoutClient, freshReservation } from '../utils/checkout-client';
import { OwnRedis, startOwnRedis, waitUntil } from '../utils/redis-server';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';
import { BUILT_MAIN, ServiceProcess, spawnService } from '../utils/service-process';

const ADMIN_KEY = 'frozen-writer-admin-key-0123456789';

/**
 * docs/write-journal.md, the fence: a replica frozen (SIGSTOP, as a GC or VM pause would) after it
 * prepared its attach, while it waits out the write spacing, for longer than its lease. Another
 * replica takes over and attaches its card; the frozen one, resumed, must send nothing. Scaled
 * down: a 1 s lease, a 4 s spacing.
 */
describe('a replica frozen past its lease sends nothing after another took over (SIGSTOP)', () => {
  let redis: OwnRedis;
  let world: SandboxedApps;
  let reader: Redis;
  let frozen: ServiceProcess | undefined;

  beforeAll(async () => {
    redis = await startOwnRedis();
    world = await startSandboxedApps(1, {
      env: {
        REDIS_URL: redis.url,
        RESERVATION_LEASE_MS: '1000',
        RESERVATION_WRITE_SPACING_MS: '4000',
        ADMIN_API_KEY: ADMIN_KEY,
        CHECKOUT_IP_RATE_LIMIT: '1000/m',
      },
      sandbox: { paymentVisibilityDelayMs: 0 },
    });
    reader = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  });

  afterEach(() => {
    if (frozen) {
      frozen.child.kill('SIGCONT');
      frozen.child.kill('SIGKILL');
    }
    frozen = undefined;
  });

  afterAll(async () => {
    reader.disconnect();
    await world.close();
    await redis.dispose();
  });

  /** A replica of the built service in a process of its own, which the test can freeze. */
  async function freezable(): Promise<string> {
    frozen = spawnService(BUILT_MAIN, {
      ...world.env,
      REDIS_URL: redis.url,
      PORT: '0',
      LOG_LEVEL: 'info',
      LOG_PRETTY: 'false',
      NODE_ENV: 'test',
    });
    const listening = await frozen.waitForLog((entry) => entry.msg === 'booking checkout service listening', 30_000);
    return `http://127.0.0.1:${listening.port as number}`;
  }

  it("frozen while its booking's confirmation reads the status, past its lease: the other replica confirms it, and the woken one sends nothing", async () => {
    const booking = bookingClient(await freezable());
    const quote = await booking.quote({ listingId: 'lst-seaside', ...stay(260, 2), guestsCount: 2 }).expect(201);
    const booked = await booking.book({ quoteId: quote.body.id, guest: newGuest() }).expect(201);
    const reservationId = booked.body.booking.reservationId as string;
    const keys = new RedisKeys(world.apps[0].config.redis.keyPrefix).reservationWrites(reservationId);
    const statusRequests = () => world.sandbox.control.counters.requests.reservationStatus ?? 0;
    const mark = statusRequests();
    await booking.submit(booked.body.id as string, cardBody(CARDS.noThreeDs)).expect(200);

    // Its confirmation reads the status under the lease; the platform answers "reserved" at once, delivered
    // 3 s later: the replica is frozen with that answer on its way, and wakes to a stale "reserved".
    world.sandbox.control.slowWrite('reservation', { actAfterMs: 0, answerAfterMs: 3_000, times: 1 });
    await world.sandbox.control.whenActed('reservation');
    frozen!.child.kill('SIGSTOP');
    await waitUntil(async () => (await reader.get(keys.lease)) === null, 10_000, "the frozen replica's lease to lapse");

    await waitUntil(
      async () => {
        world.clocks[0].advance(FOLLOW_UP_GRACE_MS);
        await world.apps[0].app.get(JournalSweep).sweepOnce();
        return world.sandbox.control.getReservation(reservationId)?.status === 'confirmed';
      },
      30_000,
      "the other replica's confirmation",
    );
    expect(statusRequests() - mark).toBe(1);

    // Woken, its step that writes the intent finds the lease gone: its confirmation is never sent.
    const failed = frozen!.waitForLog(
      (entry) =>
        entry.msg === 'a follow-up write failed; it is tried again' &&
        /took over; nothing was sent/.test(String((entry.err as { message?: string } | undefined)?.message)),
      15_000,
    );
    frozen!.child.kill('SIGCONT');
    await failed;
    expect(statusRequests() - mark).toBe(1);
    expect(world.sandbox.control.getReservation(reservationId)).toMatchObject({ status: 'confirmed' });
    const session = await checkoutClient(world.apps[0].url)
      .getSession(booked.body.id as string)
      .expect(200);
    expect(session.body.booking.status).toBe('confirmed');
  }, 90_000);

  it("the frozen writer wakes to a refused fence step: one card, the other replica's, on the platform and on file", async () => {
    const replicaA = checkoutClient(await freezable());
    const replicaB = checkoutClient(world.apps[0].url);
    const writes = new RedisKeys(world.apps[0].config.redis.keyPrefix);

    const reservation = freshReservation(world, 300);
    const keys = writes.reservationWrites(reservation.reservationId);
    const sessionId = (await replicaB.createSession(reservation.reservationId, reservation.guestEmail).expect(201)).body.id as string;
    // An operator's invoice item just before: the next write to the reservation waits out the spacing.
    await request(world.apps[0].url)
      .post(`/admin/reservations/${reservation.reservationId}/invoice-items`)
      .set('Authorization', `Bearer ${ADMIN_KEY}`)
      .set('Idempotency-Key', randomUUID())
      .send({ normalType: 'CF', title: 'Late checkout', amount: 40 })
      .expect(201);

    const attachesBefore = world.sandbox.control.counters.requests.paymentMethods ?? 0;
    // Replica A prepares its attach, then waits out the spacing: frozen there.
    const answerA = replicaA.submit(sessionId, cardBody('4242424242424242'), randomUUID()).then((res) => res);
    await waitUntil(async () => (await reader.keys(keys.intent('*'))).length > 0, 15_000, 'replica A to prepare its attach');
    frozen!.child.kill('SIGSTOP');
    await waitUntil(async () => (await reader.get(keys.lease)) === null, 10_000, "replica A's lease to lapse");

    // Replica B takes over: A's prepared intent is fenced, B's card is attached.
    const answerB = await replicaB.submit(sessionId, cardBody('5555555555554444'), randomUUID());
    expect({ status: answerB.status, session: answerB.body.status, last4: answerB.body.paymentMethod?.last4 }).toEqual({
      status: 200,
      session: 'succeeded',
      last4: '4444',
    });

    frozen!.child.kill('SIGCONT');
    const woken = await answerA;
    expect(woken.status).toBe(409);
    const methods = world.sandbox.control
      .getPaymentMethods(reservation.guestId)
      .filter((method) => method.reservationId === reservation.reservationId);
    expect(methods).toHaveLength(1);
    expect((world.sandbox.control.counters.requests.paymentMethods ?? 0) - attachesBefore).toBe(1);
    const onFile = JSON.parse((await reader.get(keys.card))!) as { paymentMethodId: string };
    expect(onFile.paymentMethodId).toBe(methods[0]._id);
    expect((await replicaB.getSession(sessionId).expect(200)).body.paymentMethod.last4).toBe('4444');
  }, 90_000);
});
