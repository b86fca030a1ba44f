import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { bookingClient, newGuest, stay } from '../booking/booking-client';
import { cardBody } from '../utils/checkout-client';
import { waitUntil } from '../utils/redis-server';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';

/**
 * A booking retried after the platform acted without our seeing its answer (docs/write-journal.md,
 * "Write kinds"): its guest and its reservation are each journaled on the quote, so the retry finds
 * what was made instead of making it again, and keeps the session its first attempt counted its
 * unpaid hold under.
 */
const ENV = {
  UPSTREAM_TIMEOUT_MS: '1000',
  UPSTREAM_DEADLINE_MS: '1000',
  RESERVATION_LEASE_MS: '1000',
  WRITE_SETTLE_SECONDS: '30',
  RESERVATION_WRITE_SPACING_MS: '0',
};
/** Longer than any test here: the platform acts when the test calls actNow. */
const ACTS_AFTER_MS = 120_000;

// Nothing published says whether the platform merges a guest created twice with one email: both ways.
describe.each([
  ['merges guests by email', true],
  ['makes a record per create', false],
])('a guest create whose answer was lost, on a platform that %s', (_name, mergeGuestsByEmail) => {
  let world: SandboxedApps;

  beforeAll(async () => {
    world = await startSandboxedApps(2, { env: ENV, sandbox: { paymentVisibilityDelayMs: 0, mergeGuestsByEmail } });
  });
  afterAll(() => world.close());
  afterEach(() => world.sandbox.control.clearFaults());

  it('the booking and its retry make one guest record and one reservation for it', async () => {
    const booking = bookingClient(world.apps[0].url);
    const quote = await booking.quote({ listingId: 'lst-city', ...stay(80, 2), guestsCount: 2 }).expect(201);
    const guest = newGuest();
    const body = { quoteId: quote.body.id as string, guest };
    const key = randomUUID();
    // The platform makes the guest; its answer never comes back.
    world.sandbox.control.dropConnection('guests', { times: 1, afterHandling: true });
    const first = await booking.book(body, key);
    const retried = await bookingClient(world.apps[1].url).book(body, key).expect(201);
    if (first.status === 201) expect(first.body.id).toBe(retried.body.id);

    const guests = world.sandbox.control.getGuestsByEmail(guest.email);
    expect(guests).toHaveLength(1);
    expect(world.sandbox.control.counters.requests.guests).toBe(1);
    const reservations = world.sandbox.control.getGuestReservations(guests[0]._id as string);
    expect(reservations.map((reservation) => reservation._id)).toEqual([retried.body.booking.reservationId]);
  });
});

describe('a booking retried after its create ended outcome_pending', () => {
  let world: SandboxedApps;

  beforeAll(async () => {
    world = await startSandboxedApps(2, {
      // The bounds here are the holds', not the budget's: four bookings in a few seconds must not meet the 15/s window.
      env: {
        ...ENV,
        BOOKING_UNPAID_HOLDS_PER_LISTING: '1',
        UPSTREAM_RATE_LIMITS: '1000/s,10000/m,100000/h',
        UPSTREAM_ANONYMOUS_SHARE: '100',
      },
      sandbox: { paymentVisibilityDelayMs: 0, rateLimits: { perSecond: 1000, perMinute: 10_000, perHour: 100_000 } },
    });
  });
  afterAll(() => world.close());
  afterEach(() => world.sandbox.control.clearFaults());

  it('keeps its unpaid hold under one session: the listing stays held until it is paid, and paying it frees the listing', async () => {
    const booking = bookingClient(world.apps[0].url);
    const quote = await booking.quote({ listingId: 'lst-city', ...stay(90, 2), guestsCount: 2 }).expect(201);
    const body = { quoteId: quote.body.id as string, guest: newGuest() };
    const key = randomUUID();
    world.sandbox.control.slowWrite('reservationFromQuote', { actAfterMs: ACTS_AFTER_MS, answerAfterMs: ACTS_AFTER_MS + 500, times: 1 });
    const acted = world.sandbox.control.whenActed('reservationFromQuote');
    const pending = await booking.book(body, key);
    expect({ status: pending.status, code: pending.body.code }).toEqual({ status: 503, code: 'outcome_pending' });
    world.sandbox.control.actNow('reservationFromQuote');
    await acted;
    const retried = await bookingClient(world.apps[1].url).book(body, key).expect(201);
    const sessionId = retried.body.id as string;

    // BOOKING_UNPAID_HOLDS_PER_LISTING=1: the retried booking fills the cap (its retry made no second hold).
    const quoteOf = async (daysAhead: number) => ({
      quoteId: (await booking.quote({ listingId: 'lst-city', ...stay(daysAhead, 2), guestsCount: 2 }).expect(201)).body.id as string,
      guest: newGuest(),
    });
    const nextBody = await quoteOf(110);
    const refused = await booking.book(nextBody);
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 429, code: 'rate_limited' });

    // Paid: its hold ends, and the listing takes the next booking.
    const paid = await request(world.apps[0].url)
      .post(`/checkout/sessions/${sessionId}/payment-method`)
      .set('Idempotency-Key', randomUUID())
      .send(cardBody());
    expect(paid.body.status).toBe('succeeded');
    await waitUntil(
      async () => (await booking.session(sessionId)).body.booking?.status === 'confirmed',
      15_000,
      'the paid reservation to be confirmed',
    );
    await booking.book(nextBody).expect(201);
  });
});
