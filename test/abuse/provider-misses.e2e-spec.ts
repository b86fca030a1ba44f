import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { newGuest, stay } from '../booking/booking-client';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';

/**
 * Bookings on a listing whose payment provider the platform does not know (404): the miss is
 * remembered for a minute on every replica, so a flood of them reads the platform once, at the
 * anonymous share, and never spends what real checkouts need.
 */
describe('a listing without a payment provider', () => {
  let world: SandboxedApps;

  beforeAll(async () => {
    world = await startSandboxedApps(2, {
      env: {
        CHECKOUT_IP_RATE_LIMIT: '10000/m',
        CHECKOUT_IP_READ_LIMIT: '10000/m',
        BOOKING_HOLDS_PER_IP: '100000/h',
        UPSTREAM_ANONYMOUS_SHARE: '100',
        UPSTREAM_RATE_LIMITS: '1000/s,10000/m,100000/h',
      },
      sandbox: { rateLimits: { perSecond: 1000, perMinute: 10_000, perHour: 100_000 } },
    });
  });

  afterAll(() => world.close());

  it('is read once for a flood of bookings on two replicas: each refused 502 payment_account_unavailable, nothing made', async () => {
    const lookups = () => world.sandbox.control.requestLog.filter((entry) => entry.route === 'providerByListing').length;
    const quotes = [];
    for (let i = 0; i < 6; i += 1) {
      const quote = await request(world.apps[i % 2].url)
        .post('/checkout/quotes')
        .send({ listingId: 'lst-seaside', ...stay(120 + 3 * i, 2), guestsCount: 2 })
        .expect(201);
      quotes.push(quote.body.id as string);
    }
    world.sandbox.control.forceStatus('providerByListing', 404, { body: { message: 'Payment provider not found' } });
    const before = lookups();
    const answers = [];
    for (const [i, quoteId] of quotes.entries()) {
      answers.push(
        await request(world.apps[i % 2].url)
          .post('/checkout/sessions')
          .set('Idempotency-Key', randomUUID())
          .send({ quoteId, guest: newGuest() }),
      );
    }
    expect(answers.map((answer) => `${answer.status} ${answer.body.code}`)).toEqual(Array(6).fill('502 payment_account_unavailable'));
    expect(lookups() - before).toBe(1);
    expect(world.sandbox.control.requestLog.filter((entry) => entry.route === 'reservationFromQuote')).toEqual([]);
  });
});
