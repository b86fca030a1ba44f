import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { newGuest, stay } from '../booking/booking-client';
import { cardBody, upstreamRequests } from '../utils/checkout-client';
import { keysAdded } from '../utils/keys-added';
import { waitUntil } from '../utils/redis-server';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';

const MAX_NIGHTS = 7;

/** Two replicas that hold two unpaid bookings per address an hour, with `bounds` of the file's own. */
function holdsWorld(bounds: Record<string, string>): Promise<SandboxedApps> {
  return startSandboxedApps(2, {
    env: {
      BOOKING_HOLDS_PER_IP: '2/h',
      TRUST_PROXY: '1',
      CHECKOUT_IP_RATE_LIMIT: '10000/m',
      CHECKOUT_IP_READ_LIMIT: '10000/m',
      UPSTREAM_ANONYMOUS_SHARE: '100',
      // The bounds here are the holds', not the budget's: a fast machine's burst of bookings must not meet the 15/s window.
      UPSTREAM_RATE_LIMITS: '1000/s,10000/m,100000/h',
      ...bounds,
    },
    sandbox: { paymentVisibilityDelayMs: 0, rateLimits: { perSecond: 1000, perMinute: 10_000, perHour: 100_000 } },
  });
}

/**
 * docs/product-spec.md §7: reservations held without a card are bounded per address
 * (BOOKING_HOLDS_PER_IP), per listing beyond each network's first (BOOKING_UNPAID_HOLDS_PER_LISTING, at once) and in length
 * (BOOKING_MAX_NIGHTS); refusals come before anything is sent to the platform. Two replicas share the counts.
 */
describe('unpaid holds are bounded per address, per listing and in nights', () => {
  let world: SandboxedApps;
  let daysAhead = 100;
  /** Sessions of the holds made so far, oldest first. */
  const held: string[] = [];

  beforeAll(async () => {
    world = await holdsWorld({ BOOKING_UNPAID_HOLDS_PER_LISTING: '3', BOOKING_MAX_NIGHTS: String(MAX_NIGHTS) });
  });

  afterAll(() => world.close());

  const from = (address: string, replica = 0) => ({
    quote: async (nights = 2) => {
      const checkIn = daysAhead;
      daysAhead += nights + 1;
      const answer = await request(world.apps[replica].url)
        .post('/checkout/quotes')
        .set('X-Forwarded-For', address)
        .send({ listingId: 'lst-seaside', ...stay(checkIn, nights), guestsCount: 2 })
        .expect(201);
      return answer.body as { id: string };
    },
    book: async (quoteId: string) => {
      const answer = await request(world.apps[replica].url)
        .post('/checkout/sessions')
        .set('X-Forwarded-For', address)
        .set('Idempotency-Key', randomUUID())
        .send({ quoteId, guest: newGuest() });
      if (answer.status === 201) held.push(answer.body.id as string);
      return answer;
    },
  });

  /** What a refusal must leave as it was: the platform asked nothing, no key but the counters written. */
  async function refusedCleanly(send: () => Promise<request.Response>, status: number, code: string): Promise<request.Response> {
    const upstream = upstreamRequests(world);
    const keys = await world.apps[0].redisKeys();
    const answer = await send();
    expect({ status: answer.status, code: answer.body.code }).toEqual({ status, code });
    expect(upstreamRequests(world)).toBe(upstream);
    expect(keysAdded(keys, await world.apps[0].redisKeys()).filter((key) => !key.includes('{limit:'))).toEqual([]);
    return answer;
  }

  it('quotes a stay longer than BOOKING_MAX_NIGHTS, but answers its booking 422 stay_not_allowed naming the limit', async () => {
    const guest = from('198.51.100.1');
    const quote = await guest.quote(MAX_NIGHTS + 1);
    const answer = await refusedCleanly(() => guest.book(quote.id), 422, 'stay_not_allowed');
    expect(answer.body.detail).toContain(`${MAX_NIGHTS} nights`);
    // The same address may still book a stay within the limit: a refused length spent nothing.
    expect((await guest.book((await guest.quote(MAX_NIGHTS)).id)).status).toBe(201);
  });

  it('refuses a third hold from one address within the hour with 429, on any replica, before the platform is asked', async () => {
    const first = from('198.51.100.2', 0);
    expect((await first.book((await first.quote()).id)).status).toBe(201);
    expect((await first.book((await first.quote()).id)).status).toBe(201);
    const third = from('198.51.100.2', 1);
    const quote = await third.quote();
    const answer = await refusedCleanly(() => third.book(quote.id), 429, 'rate_limited');
    expect(answer.headers['retry-after']).toMatch(/^\d+$/);
    expect(answer.body.detail).toMatch(/bookings/i);
  });

  it("counts a network's further holds of a listing against its cap, never a network's first; a hold paid by card stops counting", async () => {
    // Unpaid on lst-seaside so far: .1's first, .2's first and second; counted against the cap (3): .2's second.
    for (const address of ['198.51.100.3', '198.51.100.4']) {
      const guest = from(address, 1);
      expect((await guest.book((await guest.quote()).id)).status).toBe(201);
      expect((await guest.book((await guest.quote()).id)).status).toBe(201);
    }
    // Three counted now: a fifth network's second hold is refused by the listing's cap.
    const fifth = from('198.51.100.5', 0);
    expect((await fifth.book((await fifth.quote()).id)).status).toBe(201);
    const quote = await fifth.quote();
    const refused = await refusedCleanly(() => fifth.book(quote.id), 429, 'rate_limited');
    expect(refused.body.detail).toMatch(/property/i);
    // A network that holds nothing on the listing is never kept out by the others' holds.
    const sixth = from('198.51.100.6', 1);
    expect((await sixth.book((await sixth.quote()).id)).status).toBe(201);

    // .2's second hold (a counted one) is paid: it stops counting, and the fifth network's second goes through.
    const paid = await request(world.apps[0].url)
      .post(`/checkout/sessions/${held[2]}/payment-method`)
      .set('Idempotency-Key', randomUUID())
      .send(cardBody())
      .expect(200);
    expect(paid.body.status).toBe('succeeded');
    expect((await fifth.book(quote.id)).status).toBe(201);
  });
});

describe('the per-network count is of bookings waiting for payment: a paid one gives its slot back', () => {
  let world: SandboxedApps;

  beforeAll(async () => {
    world = await holdsWorld({ BOOKING_UNPAID_HOLDS_PER_LISTING: '10' });
  });

  afterAll(() => world.close());

  it('books and pays three times from one office network, then holds two unpaid; only the third unpaid is refused', async () => {
    let daysAhead = 200;
    const book = async (replica: number) => {
      const url = world.apps[replica].url;
      const quote = await request(url)
        .post('/checkout/quotes')
        .set('X-Forwarded-For', '203.0.113.40')
        .send({ listingId: 'lst-seaside', ...stay(daysAhead, 2), guestsCount: 2 })
        .expect(201);
      daysAhead += 3;
      return request(url)
        .post('/checkout/sessions')
        .set('X-Forwarded-For', '203.0.113.40')
        .set('Idempotency-Key', randomUUID())
        .send({ quoteId: quote.body.id, guest: newGuest() });
    };
    for (let paid = 0; paid < 3; paid += 1) {
      const booked = await book(paid % 2);
      expect(booked.status).toBe(201);
      expect(booked.body.booking).not.toHaveProperty('holdNetwork');
      const card = await request(world.apps[0].url)
        .post(`/checkout/sessions/${booked.body.id}/payment-method`)
        .set('Idempotency-Key', randomUUID())
        .send(cardBody())
        .expect(200);
      expect(card.body.status).toBe('succeeded');
      // The slot is given back once the card is on file (behind the answer): the next booking waits for it.
      await waitUntil(
        async () => (await request(world.apps[0].url).get(`/checkout/sessions/${booked.body.id}`)).body.booking?.status === 'confirmed',
        10_000,
        'the paid booking confirmed',
      );
    }
    expect((await book(0)).status).toBe(201);
    expect((await book(1)).status).toBe(201);
    const third = await book(0);
    expect(third.status).toBe(429);
    expect(third.body.detail).toMatch(/bookings waiting for payment from your network/);
  });

  it('a booking the platform refused before anything was made gives its slot back: the network still books', async () => {
    const url = world.apps[0].url;
    // Guests in different numbers: two quotes of the same stay, not one reused.
    const quoteFrom = async (address: string, daysAhead: number, guestsCount = 2) =>
      (
        await request(url)
          .post('/checkout/quotes')
          .set('X-Forwarded-For', address)
          .send({ listingId: 'lst-seaside', ...stay(daysAhead, 2), guestsCount })
          .expect(201)
      ).body.id as string;
    const bookFrom = (address: string, quoteId: string) =>
      request(url)
        .post('/checkout/sessions')
        .set('X-Forwarded-For', address)
        .set('Idempotency-Key', randomUUID())
        .send({ quoteId, guest: newGuest() });
    // Twice (the network's whole allowance): its quote's dates are taken by another guest before it books.
    for (const daysAhead of [260, 263]) {
      const late = await quoteFrom('203.0.113.50', daysAhead);
      expect((await bookFrom('203.0.113.51', await quoteFrom('203.0.113.51', daysAhead, 3))).status).toBe(201);
      expect((await bookFrom('203.0.113.50', late)).body.code).toBe('dates_unavailable');
    }
    expect((await bookFrom('203.0.113.50', await quoteFrom('203.0.113.50', 266))).status).toBe(201);
  });
});
