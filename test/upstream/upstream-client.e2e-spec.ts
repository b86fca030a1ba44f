import Redis from 'ioredis';
import request from 'supertest';
import { DomainError } from '../../src/common/errors/domain-error';
import { GuestyClient } from '../../src/upstream/guesty-client';
import { UpstreamError } from '../../src/upstream/upstream-error';
import { RedisKeys } from '../../src/redis/redis-keys';
import { waitUntil } from '../utils/redis-server';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';
import { testRedisUrl } from '../utils/test-config';

const CARD_REQUEST = {
  paymentProviderId: 'pp-seaside',
  listingId: 'lst-seaside',
  card: { number: '4242424242424242', exp_month: '12', exp_year: '2031', cvc: '123' },
  billing_details: { name: 'Olivia Guest', address: { line1: '1 Ocean Drive', city: 'Miami Beach', postal_code: '33139', country: 'US' } },
  threeDS: { amount: 858, currency: 'USD' },
};

describe('the upstream client spends the shared budget carefully', () => {
  describe('with a small budget', () => {
    let world: SandboxedApps;

    beforeEach(async () => {
      world = await startSandboxedApps(2, {
        // The whole budget open to anonymous reads: this is about the budget, not its shares (budget-shares.e2e-spec.ts).
        env: { UPSTREAM_RATE_LIMITS: '5/s,12/m,5000/h', UPSTREAM_DEADLINE_MS: '2000', UPSTREAM_ANONYMOUS_SHARE: '100' },
        sandbox: { rateLimits: { perSecond: 5, perMinute: 12, perHour: 5000 } },
      });
    });

    afterEach(() => world.close());

    it('never exceeds the upstream limits across instances, and refuses past the deadline with 503 + Retry-After', async () => {
      const answers = await Promise.all(
        Array.from({ length: 24 }, (_, i) => request(world.apps[i % 2].url).get(`/checkout/listings/lst-burst-${i}`)),
      );
      const statuses = answers.map((answer) => answer.status);
      expect(world.sandbox.control.counters.rateLimited).toBe(0);
      // Background reads leave one slot per window to checkout calls: 4 of 5 in the first second.
      expect(statuses.filter((status) => status === 404).length).toBeGreaterThanOrEqual(4);
      const refused = answers.filter((answer) => answer.status === 503);
      expect(refused.length).toBeGreaterThan(0);
      for (const answer of refused) {
        expect(answer.body.code).toBe('rate_limited');
        expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      }
      const second = (t: number) => Math.floor(t / 1000);
      const perSecond = new Map<number, number>();
      for (const entry of world.sandbox.control.requestLog.filter((e) => e.route === 'listing')) {
        perSecond.set(second(entry.time), (perSecond.get(second(entry.time)) ?? 0) + 1);
      }
      expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(5);
    });
  });

  describe('with room to spare', () => {
    let world: SandboxedApps;

    beforeEach(async () => {
      world = await startSandboxedApps(2, { env: { UPSTREAM_DEADLINE_MS: '6000' } });
    });

    afterEach(() => world.close());

    const client = (index: number) => world.apps[index].app.get(GuestyClient);

    it('makes every instance honour a 429 Retry-After from the upstream', async () => {
      // The reservation alone, without its parts: one call on either surface.
      const read = (index: number, reservationId: string) => client(index).getReservation(reservationId, 'checkout', []);
      await read(0, 'res-checkout-usd');
      await read(1, 'res-checkout-usd');
      world.sandbox.control.forceStatus('reservation', 429, { times: 1, headers: { 'Retry-After': '2' } });
      const first = read(0, 'res-checkout-eur');
      // The pause is shared once the first instance has written it to Redis.
      const pauseKey = new RedisKeys(world.env.REDIS_KEY_PREFIX).upstreamBudget().pause;
      const redis = new Redis(testRedisUrl());
      await waitUntil(async () => (await redis.exists(pauseKey)) === 1, 3000, 'the shared pause');
      redis.disconnect();
      const refusedAt = world.sandbox.control.requestLog.find((entry) => entry.status === 429)!.time;
      const second = read(1, 'res-checkout-gbp');
      await Promise.all([first, second]);
      const after = world.sandbox.control.requestLog.filter((entry) => entry.time > refusedAt);
      expect(after.length).toBe(2);
      for (const entry of after) expect(entry.time - refusedAt).toBeGreaterThanOrEqual(1900);
    });

    it('retries a read through forced 503s', async () => {
      world.sandbox.control.forceStatus('reservation', 503, { times: 2 });
      const reservation = await client(0).getReservation('res-checkout-usd', 'checkout', []);
      expect(reservation?.id).toBe('res-checkout-usd');
      expect(world.sandbox.control.counters.requests.reservation).toBe(3);
    });

    it('never retries a write whose connection dropped after the upstream performed it', async () => {
      const invoiceItems = () =>
        (world.sandbox.control.getReservation('res-unpaid') as { money: { invoiceItems: unknown[] } }).money.invoiceItems.length;
      const before = invoiceItems();
      world.sandbox.control.dropConnection('invoiceItems', { times: 1, afterHandling: true });
      const attempt = client(0).addInvoiceItem('res-unpaid', { normalType: 'CF', title: 'Cleaning', amount: 20 });
      await expect(attempt).rejects.toBeInstanceOf(UpstreamError);
      await expect(attempt).rejects.toMatchObject({ code: 'upstream_unavailable', maybeSent: true });
      expect(world.sandbox.control.counters.requests.invoiceItems).toBe(1);
      expect(invoiceItems()).toBe(before + 1);
    });

    it('gives up a read that keeps failing within its deadline, with a clean upstream_unavailable', async () => {
      world.sandbox.control.forceStatus('reservation', 500);
      const attempt = client(0).getReservation('res-checkout-usd');
      await expect(attempt).rejects.toBeInstanceOf(DomainError);
      await expect(attempt).rejects.toMatchObject({ code: 'upstream_unavailable', status: 503 });
    });

    it('sends the card to the tokenization host without the Open API token, outside the Open API budget', async () => {
      const answer = await client(0).tokenizeCard(CARD_REQUEST);
      expect(answer).toMatchObject({ kind: 'token', status: 200, token: { _id: expect.any(String) } });
      expect(world.sandbox.control.counters.tokenizeWithAuthorization).toBe(0);
      expect(world.sandbox.control.counters.tokensMinted).toBe(0);
    });

    it('drops the provider apiKey and caches the listing summary for every instance', async () => {
      const provider = await client(0).getPaymentProvider('lst-seaside');
      expect(provider).toMatchObject({ paymentProviderId: 'pp-seaside', status: 'ACTIVE' });
      expect(JSON.stringify(provider)).not.toMatch(/apiKey/i);
      await request(world.apps[0].url).get('/checkout/listings/lst-city').expect(200);
      const cached = await request(world.apps[1].url).get('/checkout/listings/lst-city').expect(200);
      expect(cached.body).toEqual({
        id: 'lst-city',
        title: expect.any(String),
        city: 'Paris',
        country: 'FR',
        picture: expect.any(String),
        currency: 'EUR',
      });
      expect(world.sandbox.control.counters.requests.listing).toBe(1);
      const metrics = await request(world.apps[1].url).get('/metrics');
      expect(metrics.text).toMatch(/cache_lookups_total\{cache="listing-summary",result="hit"\} 1/);
    });

    it('answers a summary it read recently from its own copy for 10 s, then from Redis again', async () => {
      const redis = new Redis(testRedisUrl());
      const key = new RedisKeys(world.env.REDIS_KEY_PREFIX).cache('listing-summary', 'lst-mountain');
      const listingReads = () => world.sandbox.control.counters.requests.listing ?? 0;
      try {
        await request(world.apps[0].url).get('/checkout/listings/lst-mountain').expect(200);
        expect(listingReads()).toBe(1);
        expect(await redis.exists(key)).toBe(1);
        // Gone from Redis: the replica that read it still answers from its copy, the other reads it again.
        await redis.del(key);
        await request(world.apps[0].url)
          .get('/checkout/listings/lst-mountain')
          .expect(200)
          .expect((res) => expect(res.body.title).toEqual(expect.any(String)));
        expect(listingReads()).toBe(1);
        await request(world.apps[1].url).get('/checkout/listings/lst-mountain').expect(200);
        expect(listingReads()).toBe(2);
        // Past 10 s the copy is dropped: Redis is asked first, and a key gone from it means one more read.
        await redis.del(key);
        world.clocks[0].advance(10_001);
        await request(world.apps[0].url).get('/checkout/listings/lst-mountain').expect(200);
        expect(listingReads()).toBe(3);
      } finally {
        redis.disconnect();
      }
    });
  });
});
