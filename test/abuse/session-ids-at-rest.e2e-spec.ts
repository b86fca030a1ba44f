import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import request from 'supertest';
import { RedisKeys } from '../../src/redis/redis-keys';
import { bookingClient, newGuest, stay } from '../booking/booking-client';
import { CARDS, cardBody, checkoutClient, freshReservation } from '../utils/checkout-client';
import { waitUntil } from '../utils/redis-server';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';

const CATALOGUE = [{ code: 'late-checkout', normalType: 'CF', title: 'Late checkout', amount: 40 }];

/**
 * docs/product-spec.md §7: a session id is a capability. Redis names a session's keys by a digest of
 * it and stores no record that carries it (the guest's URLs keep it), nor a 3-D Secure state or an
 * Idempotency-Key as the client sent it.
 */
describe('session ids at rest', () => {
  let world: SandboxedApps;

  beforeAll(async () => {
    // A budget this file's sessions, cards and bookings cannot spend in its minute (6 calls a checkout on the current surface).
    world = await startSandboxedApps(1, {
      env: {
        CHECKOUT_EXTRAS: JSON.stringify(CATALOGUE),
        CHECKOUT_IP_RATE_LIMIT: '1000/m',
        UPSTREAM_ANONYMOUS_SHARE: '100',
        UPSTREAM_RATE_LIMITS: '100/s,6000/m,100000/h',
      },
      sandbox: { paymentVisibilityDelayMs: 0, rateLimits: { perSecond: 100, perMinute: 6000, perHour: 100_000 } },
    });
  });

  afterAll(() => world.close());

  /** Every key name and value under the test's prefix that contains one of `secrets`, with the secret found. */
  async function storedWith(secrets: Record<string, string>): Promise<string[]> {
    const found: string[] = [];
    for (const [key, value] of await world.apps[0].redisContents()) {
      for (const [name, secret] of Object.entries(secrets)) {
        if (key.includes(secret)) found.push(`${name} in the key name ${key}`);
        if (value.includes(secret)) found.push(`${name} in the value of ${key}`);
      }
    }
    return found;
  }

  it('after a booking, a 3-D Secure card, its return, the confirmation and extras, nothing in Redis carries the session id, the state, a key or the guest’s email', async () => {
    const site = bookingClient(world.apps[0].url);
    const quote = await site.quote({ listingId: 'lst-seaside', ...stay(60, 2), guestsCount: 2 }).expect(201);
    const bookingKey = randomUUID();
    const guest = newGuest();
    const booked = await site.book({ quoteId: quote.body.id, guest }, bookingKey).expect(201);
    const sessionId = booked.body.id as string;

    const cardKey = randomUUID();
    const submitted = await site.submit(sessionId, cardBody(CARDS.threeDs), cardKey).expect(200);
    expect(submitted.body.status).toBe('requires_action');
    const pressed = await fetch(`${submitted.body.nextAction.redirectUrl as string}/authenticate`, { method: 'POST', redirect: 'manual' });
    const successUrl = new URL(pressed.headers.get('location')!);
    expect(successUrl.pathname).toBe(`/checkout/3ds/${sessionId}/success`);
    const landed = await fetch(successUrl, { redirect: 'manual' });
    expect(new URL(landed.headers.get('location')!).searchParams.get('status')).toBe('succeeded');

    // Confirming holds the reservation's writes; the extras follow it.
    await waitUntil(
      async () => (await site.session(sessionId)).body.booking?.status === 'confirmed',
      10_000,
      'the paid reservation to be confirmed',
    );
    const extrasKey = randomUUID();
    await request(world.apps[0].url)
      .post(`/checkout/sessions/${sessionId}/extras`)
      .set('Idempotency-Key', extrasKey)
      .send({ items: [{ code: 'late-checkout' }] })
      .expect(201);

    const keys = await world.apps[0].redisKeys();
    expect(keys.some((key) => key.includes(':session:'))).toBe(true);
    expect(keys.some((key) => key.includes(':idempotency:'))).toBe(true);
    expect(
      await storedWith({
        'the session id': sessionId,
        'the 3-D Secure state': successUrl.searchParams.get('state')!,
        'the booking’s Idempotency-Key': bookingKey,
        'the card’s Idempotency-Key': cardKey,
        'the extras’ Idempotency-Key': extrasKey,
        'the guest’s email': guest.email,
      }),
    ).toEqual([]);
    // The guest's own URL keeps the id: the session still answers by it.
    expect((await site.session(sessionId).expect(200)).body).toMatchObject({ id: sessionId, status: 'succeeded' });
  });

  it('a booking replayed with its Idempotency-Key answers the session id it opened', async () => {
    const site = bookingClient(world.apps[0].url);
    const quote = await site.quote({ listingId: 'lst-seaside', ...stay(64, 2), guestsCount: 2 }).expect(201);
    const body = { quoteId: quote.body.id, guest: newGuest() };
    const key = randomUUID();
    const first = await site.book(body, key).expect(201);
    const again = await site.book(body, key).expect(201);
    expect(again.body).toEqual(first.body);
    expect(await storedWith({ 'the session id': first.body.id as string })).toEqual([]);
  });

  it('a direct checkout session: no key name or value carries its id', async () => {
    const { reservationId, guestEmail } = freshReservation(world);
    const site = checkoutClient(world.apps[0].url);
    const sessionId = (await site.createSession(reservationId, guestEmail).expect(201)).body.id as string;
    expect((await site.submit(sessionId, cardBody()).expect(200)).body.status).toBe('succeeded');
    expect(await storedWith({ 'the session id': sessionId })).toEqual([]);
    expect((await site.getSession(sessionId).expect(200)).body.id).toBe(sessionId);
  });

  it('an open session the previous version wrote under its raw id completes its checkout after the deploy, and moves to its ref', async () => {
    const reservation = freshReservation(world);
    const site = checkoutClient(world.apps[0].url);
    const view = (await site.createSession(reservation.reservationId, reservation.guestEmail).expect(201)).body;
    const id = view.id as string;
    // The record as the previous version wrote it: under the raw id, carrying it, with no sealed id.
    const previous = {
      id,
      version: 1,
      status: 'requires_payment_method',
      reservationId: view.reservationId,
      listingId: view.listingId,
      guestId: reservation.guestId,
      paymentProviderId: view.paymentProviderId,
      amount: view.amount,
      currency: view.currency,
      createdAt: Date.now(),
      expiresAt: Date.parse(view.expiresAt),
    };
    const keys = new RedisKeys(world.apps[0].config.redis.keyPrefix);
    const redis = new Redis(world.apps[0].config.redis.url!);
    try {
      await redis.del(keys.checkoutSession(RedisKeys.sessionRef(id)));
      await redis.set(keys.legacyCheckoutSession(id), JSON.stringify(previous), 'PX', 600_000);

      const paid = await site.submit(id, cardBody()).expect(200);
      expect(paid.body).toMatchObject({ id, status: 'succeeded', paymentMethod: { last4: '4242' } });
      expect(await redis.exists(keys.legacyCheckoutSession(id))).toBe(0);
      expect((await site.getSession(id).expect(200)).body).toMatchObject({ id, status: 'succeeded' });
      expect(await storedWith({ 'the session id': id })).toEqual([]);
    } finally {
      redis.disconnect();
    }
  });
});
