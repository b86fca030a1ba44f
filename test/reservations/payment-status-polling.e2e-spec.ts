import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import request from 'supertest';
import { RedisKeys } from '../../src/redis/redis-keys';
import { CARDS, cardBody, checkoutClient, freshReservation } from '../utils/checkout-client';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';
import { testRedisUrl } from '../utils/test-config';
import { awaitCharge } from '../utils/charges';

const ADMIN_API_KEY = 'polling-admin-key-0123456789abcdef';
const SETTLE_DELAY_MS = 500;
// Longer than any test here takes: an answer still served afterwards was kept, not read again.
const REFRESH_SECONDS = 60;

describe('payment-status is cheap to poll', () => {
  let world: SandboxedApps;

  beforeAll(async () => {
    world = await startSandboxedApps(3, {
      env: { ADMIN_API_KEY, CHECKOUT_IP_READ_LIMIT: '10000/m', PAYMENT_STATUS_REFRESH_SECONDS: String(REFRESH_SECONDS) },
      sandbox: { paymentVisibilityDelayMs: 0, chargeSettleDelayMs: SETTLE_DELAY_MS },
    });
  });

  afterEach(() => world.sandbox.control.clearFaults());
  afterAll(() => world.close());

  const upstreamPaymentReads = () =>
    world.sandbox.control.requestLog.filter((entry) => entry.route === 'reservation' || entry.route === 'listPaymentMethods').length;
  const poll = (replica: number, sessionId: string) =>
    request(world.apps[replica].url).get(`/checkout/sessions/${sessionId}/payment-status`);

  async function session(card?: string): Promise<{ sessionId: string; reservationId: string }> {
    const reservation = freshReservation(world, 300);
    const site = checkoutClient(world.apps[0].url);
    const created = await site.createSession(reservation.reservationId, reservation.guestEmail).expect(201);
    if (card) await site.submit(created.body.id, cardBody(card)).expect(200);
    return { sessionId: created.body.id as string, reservationId: reservation.reservationId };
  }

  it('reads the reservation once for 100 concurrent polls across three replicas, and keeps the answer for PAYMENT_STATUS_REFRESH_SECONDS', async () => {
    const { sessionId, reservationId } = await session();
    const before = upstreamPaymentReads();
    const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => poll(i % 3, sessionId)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(100).fill(200));
    expect(new Set(answers.map((answer) => JSON.stringify(answer.body))).size).toBe(1);
    expect(answers[0].body).toMatchObject({ state: 'missing', diagnosis: { code: 'not_attached' } });
    // One diagnosis of an unpaid reservation: its reservation and its payment methods, once.
    expect(upstreamPaymentReads() - before).toBeLessThanOrEqual(2);

    const redis = new Redis(testRedisUrl());
    try {
      const ttl = await redis.pttl(new RedisKeys(world.env.REDIS_KEY_PREFIX).paymentStatus(reservationId).answer);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(REFRESH_SECONDS * 1000);
    } finally {
      redis.disconnect();
    }
    const metrics =
      (await request(world.apps[0].url).get('/metrics')).text +
      (await request(world.apps[1].url).get('/metrics')).text +
      (await request(world.apps[2].url).get('/metrics')).text;
    const counted = (source: string) =>
      [...metrics.matchAll(new RegExp(`payment_status_checks_total\\{source="${source}"\\} (\\d+)`, 'g'))].reduce(
        (sum, match) => sum + Number(match[1]),
        0,
      );
    expect(counted('upstream')).toBe(1);
    expect(counted('cached') + counted('coalesced')).toBe(99);
  });

  it("tells the guest a safe message; the processor's own words reach the admin route only", async () => {
    const { sessionId, reservationId } = await session(CARDS.processorError);
    // The platform charges the card a moment after the attach; the failed charge is what the guest hears of.
    await awaitCharge(world, reservationId, 'FAILED', SETTLE_DELAY_MS);
    const guest = await poll(1, sessionId).expect(200);
    expect(guest.body).toMatchObject({ state: 'failed', diagnosis: { code: 'processor_error', category: 'insufficient_funds' } });
    expect(guest.body.diagnosis.message).not.toContain('Your card has insufficient funds.');
    expect(guest.body.diagnosis.message).toMatch(/another card|your bank/);
    const admin = await request(world.apps[2].url)
      .get(`/admin/reservations/${reservationId}/payment-diagnostics`)
      .set('Authorization', `Bearer ${ADMIN_API_KEY}`)
      .expect(200);
    expect(admin.body.diagnosis.message).toContain('Your card has insufficient funds.');
  });
  /** What the guest is told once the card is on the reservation: its payment (scheduled or paid), not "no card on file". */
  function expectCardShown(body: { state: string; diagnosis: { code: string }; payments: { last4?: string }[] }): void {
    expect(body.state).toMatch(/^(scheduled|paid)$/);
    expect(body.diagnosis.code).toBe('ok');
    expect(body.payments).toEqual([expect.objectContaining({ amount: 300, status: expect.stringMatching(/^(PENDING|SUCCEEDED)$/) })]);
  }

  it('a poll after the card is attached shows the card, not the "no card" it served before', async () => {
    const { sessionId } = await session();
    await poll(0, sessionId)
      .expect(200)
      .expect((res) => expect(res.body).toMatchObject({ state: 'missing', diagnosis: { code: 'not_attached' } }));
    await checkoutClient(world.apps[1].url).submit(sessionId, cardBody(CARDS.noThreeDs)).expect(200);
    const after = (await poll(2, sessionId).expect(200)).body;
    expectCardShown(after);
    expect(after.payments[0].last4).toBe('4242');
  });

  it('a card whose answer was lost, settled by a later request after its own session is gone: the next poll shows it', async () => {
    // Two sessions on one reservation (two tabs): the second polls, the first pays.
    const reservation = freshReservation(world, 300);
    const site = checkoutClient(world.apps[0].url);
    const paying = (await site.createSession(reservation.reservationId, reservation.guestEmail).expect(201)).body.id as string;
    const watching = (await site.createSession(reservation.reservationId, reservation.guestEmail).expect(201)).body.id as string;
    await poll(1, watching)
      .expect(200)
      .expect((res) => expect(res.body).toMatchObject({ state: 'missing', diagnosis: { code: 'not_attached' } }));

    // The platform attaches the card and the answer is lost; from then on it cannot be read, so the attach stays open.
    const { control } = world.sandbox;
    control.dropConnection('paymentMethods', { afterHandling: true, times: 1 });
    const acted = control.whenActed('paymentMethods').then(() => control.forceStatus('listPaymentMethods', 503, { times: 1_000 }));
    const unclear = await site.submit(paying, cardBody(CARDS.noThreeDs), randomUUID());
    await acted;
    expect(unclear.status).toBe(503);
    expect(unclear.body.code).toBe('outcome_pending');

    // The paying session expires before anyone settles its attach: nobody is told on its behalf.
    const keys = new RedisKeys(world.env.REDIS_KEY_PREFIX);
    const redis = new Redis(testRedisUrl());
    try {
      await redis.del(keys.checkoutSession(RedisKeys.sessionRef(paying)));
      expect(await redis.exists(keys.paymentStatus(reservation.reservationId).answer)).toBe(1);
      control.clearFaults();
      // The other tab's card: its request settles the open attach (landed), and the card on file refuses it.
      const refused = await checkoutClient(world.apps[2].url).submit(watching, cardBody('5555555555554444'), randomUUID());
      expect(refused.status).toBe(409);
      expect(refused.body.code).toBe('already_paid');
      // The landed step dropped the answer served before it.
      expect(await redis.exists(keys.paymentStatus(reservation.reservationId).answer)).toBe(0);
    } finally {
      redis.disconnect();
    }
    expectCardShown((await poll(1, watching).expect(200)).body);
    expect(control.getPaymentMethods(reservation.guestId)).toHaveLength(1);
  });
});
