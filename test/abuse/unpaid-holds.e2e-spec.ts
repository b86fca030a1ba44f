import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import request from 'supertest';
import { RedisKeys } from '../../src/redis/redis-keys';
import { newGuest, stay } from '../booking/booking-client';
import { cardBody, upstreamRequests } from '../utils/checkout-client';
import { keysAdded } from '../utils/keys-added';
import { waitUntil } from '../utils/redis-server';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';
import { testRedisUrl } from '../utils/test-config';

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

/** What a refusal must leave as it was: the platform asked nothing, no key but the counters written. */
async function refusedCleanly(
  world: SandboxedApps,
  send: () => Promise<request.Response>,
  status: number,
  code: string,
): Promise<request.Response> {
  const upstream = upstreamRequests(world);
  const keys = await world.apps[0].redisKeys();
  const answer = await send();
  expect({ status: answer.status, code: answer.body.code }).toEqual({ status, code });
  expect(upstreamRequests(world)).toBe(upstream);
  expect(keysAdded(keys, await world.apps[0].redisKeys()).filter((key) => !key.includes('{limit:'))).toEqual([]);
  return answer;
}

/**
 * docs/product-spec.md §7: reservations held without a card are bounded per address
 * (BOOKING_HOLDS_PER_IP), per listing from each network's first (BOOKING_UNPAID_HOLDS_PER_LISTING, at once) and in length
 * (BOOKING_MAX_NIGHTS); refusals come before anything is sent to the platform. Two replicas share the counts.
 */
describe('unpaid holds are bounded per address, per listing and in nights', () => {
  let world: SandboxedApps;
  const redis = new Redis(testRedisUrl());
  let daysAhead = 100;
  /** Sessions of the holds made so far, oldest first. */
  const held: string[] = [];

  beforeAll(async () => {
    world = await holdsWorld({ BOOKING_UNPAID_HOLDS_PER_LISTING: '3', BOOKING_MAX_NIGHTS: String(MAX_NIGHTS) });
  });

  afterAll(async () => {
    redis.disconnect();
    await world.close();
  });

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

  it('quotes a stay longer than BOOKING_MAX_NIGHTS, but answers its booking 422 stay_not_allowed naming the limit', async () => {
    const guest = from('198.51.100.1');
    const quote = await guest.quote(MAX_NIGHTS + 1);
    const answer = await refusedCleanly(world, () => guest.book(quote.id), 422, 'stay_not_allowed');
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
    const answer = await refusedCleanly(world, () => third.book(quote.id), 429, 'rate_limited');
    expect(answer.headers['retry-after']).toMatch(/^\d+$/);
    expect(answer.body.detail).toMatch(/bookings/i);
  });

  it("counts every hold of the listing against its cap, a network's first too; a hold paid by card stops counting", async () => {
    // Unpaid on lst-seaside so far: .1's hold, .2's two: the cap (3) is full.
    const newcomer = from('198.51.100.3', 1);
    const quote = await newcomer.quote();
    const refused = await refusedCleanly(world, () => newcomer.book(quote.id), 429, 'rate_limited');
    expect(refused.body.detail).toMatch(/property/i);
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);

    // .2's second hold is paid: it stops counting (behind the answer), and the newcomer's first goes through.
    const holds = new RedisKeys(world.apps[0].config.redis.keyPrefix).requestLimit('unpaid-holds', 'lst-seaside').window;
    const paid = await request(world.apps[0].url)
      .post(`/checkout/sessions/${held[2]}/payment-method`)
      .set('Idempotency-Key', randomUUID())
      .send(cardBody())
      .expect(200);
    expect(paid.body.status).toBe('succeeded');
    await waitUntil(async () => (await redis.zcard(holds)) === 2, 10_000, "the paid hold to leave the listing's count");
    expect((await newcomer.book(quote.id)).status).toBe(201);
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

/**
 * docs/product-spec.md §7: a listing cannot be held away. The nights held unpaid on a listing at once
 * are bounded (BOOKING_UNPAID_NIGHTS_PER_LISTING, default 62), whoever holds them: a dozen networks
 * with a month's stay each leave most of the listing's year bookable.
 */
describe('the nights held unpaid on a listing are bounded: a dozen networks cannot hold its year away', () => {
  const LISTING = 'lst-test';
  const NIGHTS_BOUND = 62;
  let world: SandboxedApps;
  const redis = new Redis(testRedisUrl());
  /** Sessions of the holds made, oldest first. */
  const held: string[] = [];
  let nextNetwork = 1;

  beforeAll(async () => {
    world = await holdsWorld({});
  });

  afterAll(async () => {
    redis.disconnect();
    await world.close();
  });

  /** A stay (a month unless told) `daysAhead` days from today, quoted now and booked by `book` from a network of its own. */
  async function monthFromNewNetwork(daysAhead: number, nights = 31) {
    const address = `203.0.${nextNetwork++}.7`;
    const quote = await request(world.apps[nextNetwork % 2].url)
      .post('/checkout/quotes')
      .set('X-Forwarded-For', address)
      .send({ listingId: LISTING, ...stay(daysAhead, nights), guestsCount: 2 })
      .expect(201);
    const book = async () => {
      const answer = await request(world.apps[nextNetwork % 2].url)
        .post('/checkout/sessions')
        .set('X-Forwarded-For', address)
        .set('Idempotency-Key', randomUUID())
        .send({ quoteId: quote.body.id, guest: newGuest() });
      if (answer.status === 201) held.push(answer.body.id as string);
      return answer;
    };
    return { address, book };
  }

  it("a dozen networks each try a month's stay spread over the year: the calendar keeps all but the bound available", async () => {
    const answers: request.Response[] = [];
    for (let index = 0; index < 12; index += 1) answers.push(await (await monthFromNewNetwork(1 + index * 31)).book());

    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(Math.floor(NIGHTS_BOUND / 31));
    for (const refused of answers.filter((answer) => answer.status !== 201)) {
      expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 429, code: 'rate_limited' });
      expect(refused.body.detail).toMatch(/property/i);
      // At most a hold's length (30 minutes): the soonest the held nights free.
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(30 * 60);
    }
    const year = stay(0, 359);
    const calendar = await request(world.apps[0].url)
      .get(`/checkout/listings/${LISTING}/calendar`)
      .query({ from: year.checkIn, to: year.checkOut })
      .expect(200);
    const days = calendar.body.days as { available: boolean }[];
    expect(days).toHaveLength(360);
    expect(days.filter((day) => day.available).length).toBeGreaterThanOrEqual(360 - NIGHTS_BOUND);
  });

  it('a refusal is 429 with Retry-After and leaves nothing: no call upstream, no slot of the listing or the network taken', async () => {
    const keys = new RedisKeys(world.apps[0].config.redis.keyPrefix);
    const guest = await monthFromNewNetwork(70, 2);
    const windows = [
      keys.requestLimit('unpaid-holds', LISTING).window,
      keys.requestLimit('unpaid-nights', LISTING).window,
      keys.requestLimit('booking-holds', guest.address).window,
    ];
    const slots = () => Promise.all(windows.map((window) => redis.zrange(window, 0, -1)));
    const before = await slots();
    const refused = await refusedCleanly(world, () => guest.book(), 429, 'rate_limited');
    expect(refused.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    expect(await slots()).toEqual(before);
    expect(before[1]).toHaveLength(2 * 31);
  });

  it("a hold paid by card frees its nights: the next month's stay is let in", async () => {
    const nights = new RedisKeys(world.apps[0].config.redis.keyPrefix).requestLimit('unpaid-nights', LISTING).window;
    const paid = await request(world.apps[0].url)
      .post(`/checkout/sessions/${held[0]}/payment-method`)
      .set('Idempotency-Key', randomUUID())
      .send(cardBody())
      .expect(200);
    expect(paid.body.status).toBe('succeeded');
    // Its nights are given back behind the answer.
    await waitUntil(async () => (await redis.zcard(nights)) === 31, 10_000, "the paid hold's nights to be given back");
    expect((await (await monthFromNewNetwork(100)).book()).status).toBe(201);
  });
});
