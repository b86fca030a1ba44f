import { randomBytes, randomUUID } from 'node:crypto';
import request from 'supertest';
import { bookingClient, newGuest, stay } from '../booking/booking-client';
import { ADMIN_KEY, adminClient } from '../invoices/invoice-test-helpers';
import { cardBody, checkoutClient } from '../utils/checkout-client';
import { keysAdded } from '../utils/keys-added';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';

const REPEATS = 50;

/** A quote id as the service makes them (q_ and 22 characters), that no quote has. */
const unknownQuoteId = () => `q_${randomBytes(16).toString('base64url').slice(0, 22)}`;

/**
 * docs/product-spec.md §7: an Idempotency-Key is recorded only for a request that passed validation
 * and found its resource. A stream of refused requests, each with a fresh key, must not grow Redis
 * (a 24-hour record each would be ~86 000 keys a day per address at the per-IP limit).
 */
describe('refused write requests leave nothing in Redis', () => {
  let world: SandboxedApps;
  let url: string;

  beforeAll(async () => {
    world = await startSandboxedApps(1, {
      env: {
        ADMIN_API_KEY: ADMIN_KEY,
        CHECKOUT_IP_RATE_LIMIT: '10000/m',
        CHECKOUT_IP_READ_LIMIT: '10000/m',
        UPSTREAM_ANONYMOUS_SHARE: '100',
        CHECKOUT_EXTRAS: JSON.stringify([{ code: 'late-checkout', normalType: 'CF', title: 'Late checkout', amount: 40 }]),
      },
    });
    url = world.apps[0].url;
    // The per-address counter and the token exist from the first request on; they are what every request costs.
    await bookingClient(url).book({ quoteId: unknownQuoteId(), guest: newGuest() }).expect(404);
    await adminClient(url).addItem('res-unknown-warmup', { normalType: 'CF', title: 'Late checkout', amount: 40 });
  });

  afterAll(() => world.close());

  const keys = () => world.apps[0].redisKeys();

  it.each([
    [
      'a booking of an unknown quote (404 quote_not_found)',
      404,
      () => bookingClient(url).book({ quoteId: unknownQuoteId(), guest: newGuest() }),
    ],
    [
      'a booking with a guest refused by validation (400)',
      400,
      () => bookingClient(url).book({ quoteId: unknownQuoteId(), guest: newGuest({ email: 'not-an-email' }) }),
    ],
    [
      'a card for an unknown session (404 session_not_found)',
      404,
      () => checkoutClient(url).submit(`cs_${randomBytes(24).toString('base64url')}`, cardBody()),
    ],
    [
      'extras for an unknown session (404 session_not_found)',
      404,
      () =>
        request(url)
          .post(`/checkout/sessions/cs_${randomBytes(24).toString('base64url')}/extras`)
          .set('Idempotency-Key', randomUUID())
          .send({ items: [{ code: 'late-checkout' }] }),
    ],
    [
      'an invoice item for a reservation the platform does not know (404)',
      404,
      () => adminClient(url).addItem(`res-${randomUUID()}`, { normalType: 'CF', title: 'Late checkout', amount: 40 }),
    ],
  ])('%s, %#: 50 of them with fresh keys add no key', async (_name, status, send) => {
    const before = await keys();
    for (let i = 0; i < REPEATS; i += 1) expect((await send()).status).toBe(status);
    expect(keysAdded(before, await keys())).toEqual([]);
  });

  it('a booking with a rate plan the quote does not have is 400 and records nothing', async () => {
    const quote = (
      await bookingClient(url)
        .quote({ listingId: 'lst-seaside', ...stay(70, 2), guestsCount: 2 })
        .expect(201)
    ).body as { id: string };
    const before = await keys();
    const answer = await bookingClient(url).book({ quoteId: quote.id, ratePlanId: 'rp-none-such', guest: newGuest() }).expect(400);
    expect(answer.body.errors).toEqual([expect.objectContaining({ field: 'ratePlanId' })]);
    expect(keysAdded(before, await keys())).toEqual([]);
  });
});
