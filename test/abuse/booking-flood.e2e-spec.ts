import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { newGuest, stay } from '../booking/booking-client';
import { cardBody, freshReservation } from '../utils/checkout-client';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';

/**
 * The minute's budget scaled down (60 calls), of which anonymous traffic may use a quarter: the rest
 * holds the real checkouts with room (6 calls each on the platform's current surface, 3 on the legacy).
 */
const PER_MINUTE = 60;
const ANONYMOUS_SHARE = 25;
const FLOOD = 20;
const CHECKOUTS = 4;

let nextAddress = 0;
const floodAddress = () => `198.18.7.${(nextAddress++ % 250) + 1}`;

/**
 * docs/product-spec.md §7: a booking before a card is on file is anonymous traffic. A flood of
 * quotes and bookings with made-up guests, from addresses of their own, on three replicas, spends
 * at most the anonymous share of the minute; real checkouts beside it all complete and the platform
 * answers no 429.
 */
describe('a booking flood stays within the anonymous share; real checkouts beside it complete', () => {
  let world: SandboxedApps;

  beforeAll(async () => {
    world = await startSandboxedApps(3, {
      env: {
        TRUST_PROXY: '1',
        UPSTREAM_RATE_LIMITS: `100/s,${PER_MINUTE}/m,5000/h`,
        UPSTREAM_ANONYMOUS_SHARE: String(ANONYMOUS_SHARE),
        BOOKING_HOLDS_PER_IP: '1000/h',
        BOOKING_UNPAID_HOLDS_PER_LISTING: '1000',
        BOOKING_UNPAID_NIGHTS_PER_LISTING: '100000',
      },
      sandbox: { rateLimits: { perSecond: 100, perMinute: PER_MINUTE, perHour: 5000 }, paymentVisibilityDelayMs: 0 },
    });
  });

  afterAll(() => world.close());

  async function floodBooking(index: number): Promise<number> {
    const address = floodAddress();
    const url = world.apps[index % 3].url;
    const quote = await request(url)
      .post('/checkout/quotes')
      .set('X-Forwarded-For', address)
      .send({ listingId: 'lst-seaside', ...stay(120 + index * 3, 2), guestsCount: 2 });
    if (quote.status !== 201) return quote.status;
    const booked = await request(url)
      .post('/checkout/sessions')
      .set('X-Forwarded-For', address)
      .set('Idempotency-Key', randomUUID())
      .send({ quoteId: quote.body.id, guest: newGuest() });
    return booked.status;
  }

  async function realCheckout(index: number): Promise<string> {
    const url = world.apps[index % 3].url;
    const { reservationId, guestEmail } = freshReservation(world);
    const session = await request(url).post('/checkout/sessions').send({ reservationId, email: guestEmail });
    if (session.status !== 201) return `session ${session.status} ${session.body.code}`;
    const paid = await request(url)
      .post(`/checkout/sessions/${session.body.id}/payment-method`)
      .set('Idempotency-Key', randomUUID())
      .send(cardBody());
    return paid.status === 200 ? (paid.body.status as string) : `card ${paid.status} ${paid.body.code}`;
  }

  it('bookings and quotes of the flood take at most the share; every checkout succeeds; no 429 upstream', async () => {
    const flood = Promise.all(Array.from({ length: FLOOD }, (_, i) => floodBooking(i)));
    const checkouts: string[] = [];
    for (let i = 0; i < CHECKOUTS; i += 1) checkouts.push(await realCheckout(i));
    const floodAnswers = await flood;

    expect(checkouts).toEqual(Array(CHECKOUTS).fill('succeeded'));
    expect(world.sandbox.control.counters.rateLimited).toBe(0);
    const anonymousCalls = world.sandbox.control.requestLog.filter((entry) =>
      ['createQuote', 'guests', 'reservationFromQuote', 'listing', 'calendar'].includes(entry.route),
    );
    expect(anonymousCalls.length).toBeLessThanOrEqual((PER_MINUTE * ANONYMOUS_SHARE) / 100);
    // What the flood did not get was refused as the share being spent, never as an error of ours.
    expect(floodAnswers.filter((status) => status !== 201).every((status) => status === 503)).toBe(true);
  });
});

/**
 * docs/product-spec.md §6: a write refused before it was sent keeps nothing. One address books one
 * quote under many Idempotency-Keys while the anonymous share is spent: the refused bookings leave no
 * journal intent (which would hold the guest's sealed email for a day), only the writes the platform
 * received have one.
 */
describe('bookings refused by the budget keep nothing', () => {
  let world: SandboxedApps;

  beforeAll(async () => {
    world = await startSandboxedApps(1, {
      env: {
        TRUST_PROXY: '1',
        UPSTREAM_RATE_LIMITS: '100/s,20/m,5000/h',
        UPSTREAM_ANONYMOUS_SHARE: '25',
        BOOKING_HOLDS_PER_IP: '1000/h',
        BOOKING_UNPAID_HOLDS_PER_LISTING: '1000',
      },
      sandbox: { rateLimits: { perSecond: 100, perMinute: 20, perHour: 5000 }, paymentVisibilityDelayMs: 0 },
    });
  });

  afterAll(() => world.close());

  it('forty keys on one quote leave intents only for the writes that were sent', async () => {
    const url = world.apps[0].url;
    const quote = await request(url)
      .post('/checkout/quotes')
      .set('X-Forwarded-For', '198.18.9.1')
      .send({ listingId: 'lst-seaside', ...stay(200, 2), guestsCount: 2 });
    expect(quote.status).toBe(201);
    // Other stays' quotes spend the rest of the share, before the booking's guest is created.
    for (let night = 0, spent = false; !spent; night += 3) {
      const other = await request(url)
        .post('/checkout/quotes')
        .set('X-Forwarded-For', '198.18.9.2')
        .send({ listingId: 'lst-seaside', ...stay(240 + night, 2), guestsCount: 2 });
      spent = other.status === 503;
    }
    const statuses: number[] = [];
    for (let i = 0; i < 40; i += 1) {
      const booked = await request(url)
        .post('/checkout/sessions')
        .set('X-Forwarded-For', '198.18.9.1')
        .set('Idempotency-Key', randomUUID())
        .send({ quoteId: quote.body.id, guest: newGuest() });
      statuses.push(booked.status);
    }
    expect(statuses.filter((status) => status === 503).length).toBe(40);
    const sent = world.sandbox.control.requestLog.filter((entry) => ['guests', 'reservationFromQuote'].includes(entry.route));
    const intents = (await world.apps[0].redisKeys()).filter((key) => key.includes(':intent:'));
    expect(intents.length).toBeLessThanOrEqual(sent.length);
  });
});
