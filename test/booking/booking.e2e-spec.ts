import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { FOLLOW_UP_GRACE_MS } from '../../src/journal/follow-ups';
import { JournalSweep } from '../../src/journal/journal-sweep';
import { RedisKeys } from '../../src/redis/redis-keys';
import { onSurface } from '../utils/surface';
import { CARDS, cardBody, upstreamRequests } from '../utils/checkout-client';
import { waitUntil } from '../utils/redis-server';
import { SandboxClient } from '../sandbox/sandbox-helpers';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';
import { startTestApp, TestApp } from '../utils/test-app';
import { testConfig } from '../utils/test-config';
import { bookingClient, newGuest, stay } from './booking-client';
import { expectOneMessageFor } from '../utils/field-errors';
import { keysAdded } from '../utils/keys-added';

const SPACING_MS = 300;

/**
 * docs/product-spec.md §3.1 end to end: dates → quote → guest → held reservation → card →
 * confirmed, on two replicas sharing Redis, against the sandbox over real HTTP.
 */
describe('booking: quote, guest, held reservation, card, confirmation', () => {
  let world: SandboxedApps;
  let requestMode: TestApp;

  beforeAll(async () => {
    world = await startSandboxedApps(2, {
      env: {
        RESERVATION_WRITE_SPACING_MS: String(SPACING_MS),
        CHECKOUT_IP_RATE_LIMIT: '10000/m',
        BOOKING_HOLDS_PER_IP: '100000/h',
        BOOKING_UNPAID_HOLDS_PER_LISTING: '1000',
        BOOKING_UNPAID_NIGHTS_PER_LISTING: '100000',
        CHECKOUT_IP_READ_LIMIT: '10000/m',
        // Quotes and bookings before a card are anonymous traffic, and this file asks for many in a
        // few seconds: a budget it cannot exhaust, since bookings, not the budget, are under test here
        // (at the platform's 15/s its bursts met the anonymous wait and answered 503 rate_limited).
        UPSTREAM_ANONYMOUS_SHARE: '100',
        UPSTREAM_RATE_LIMITS: '100/s,6000/m,100000/h',
      },
      sandbox: { paymentVisibilityDelayMs: 0, rateLimits: { perSecond: 100, perMinute: 6000, perHour: 100000 } },
    });
    requestMode = await startTestApp(
      {},
      { config: testConfig({ ...world.env, PORT: '0', BOOKING_CONFIRMATION: 'request' }), clock: world.clocks[0] },
    );
  });

  afterEach(() => world.sandbox.control.clearFaults());
  afterAll(async () => {
    await requestMode.close();
    await world.close();
  });

  const site = (index = 0) => bookingClient(world.apps[index].url);
  const log = () => world.sandbox.control.requestLog;
  const count = (route: string) => log().filter((entry) => entry.route === route).length;

  async function quoteFor(daysAhead: number, nights = 3, extra: Record<string, unknown> = {}) {
    const answer = await site(0)
      .quote({ listingId: 'lst-seaside', ...stay(daysAhead, nights), guestsCount: 2, ...extra })
      .expect(201);
    return answer.body as { id: string; ratePlans: { id: string; total: number }[]; currency: string };
  }

  describe('quotes', () => {
    it('answers its own id over the upstream quote, with rate plans, their totals and breakdown, and an expiry', async () => {
      const dates = stay(40, 3);
      const answer = await site(0)
        .quote({ listingId: 'lst-seaside', ...dates, guestsCount: 2 })
        .expect(201);
      expect(answer.body).toMatchObject({ listingId: 'lst-seaside', ...dates, nights: 3, guestsCount: 2, currency: 'USD' });
      expect(answer.body.id).toMatch(/^q_[A-Za-z0-9_-]{22,}$/);
      expect(world.sandbox.control.getQuote(answer.body.id)).toBeUndefined();
      expect(Date.parse(answer.body.expiresAt)).toBeGreaterThan(Date.now());
      expect(answer.body.ratePlans.length).toBeGreaterThanOrEqual(1);
      for (const plan of answer.body.ratePlans as { total: number; breakdown: Record<string, number> }[]) {
        const { accommodation, cleaning, fees, taxes, discount } = plan.breakdown;
        expect(cleaning).toBe(60);
        expect(taxes).toBeGreaterThan(0);
        expect(plan.total).toBeCloseTo(accommodation - discount + cleaning + fees + taxes, 2);
        // The sandbox's fees are only the cleaning fee, which the platform's totalFees already counts.
        expect(fees).toBe(0);
      }
    });

    it("charges the guest subTotalPrice + totalTaxes where the platform's hostPayout is the host's net after a channel commission", async () => {
      const dates = stay(47, 2);
      const before = await site(0)
        .quote({ listingId: 'lst-city', ...dates, guestsCount: 1 })
        .expect(201);
      world.sandbox.control.setChannelCommission(15);
      try {
        const upstream = await new SandboxClient(world.sandbox).api('/v1/quotes', {
          body: {
            listingId: 'lst-city',
            checkInDateLocalized: dates.checkIn,
            checkOutDateLocalized: dates.checkOut,
            guestsCount: 1,
            source: 'website',
          },
        });
        const money = upstream.body.rates.ratePlans[0].ratePlan.money;
        expect(money.hostPayout).toBeLessThan(money.subTotalPrice + money.totalTaxes);

        // Another guest count: the same prices, not the reused quote.
        const quote = await site(0)
          .quote({ listingId: 'lst-city', ...dates, guestsCount: 2 })
          .expect(201);
        const plan = quote.body.ratePlans[0] as { id: string; total: number };
        expect(plan.total).toBeCloseTo(money.subTotalPrice + money.totalTaxes, 2);
        expect(plan.total).toBe(before.body.ratePlans[0].total);
        const booked = await site(0).book({ quoteId: quote.body.id, ratePlanId: plan.id, guest: newGuest() }).expect(201);
        expect(booked.body.amount).toBe(plan.total);
        expect(world.sandbox.control.getReservation(booked.body.booking.reservationId)).toMatchObject({
          money: { balanceDue: plan.total },
        });
      } finally {
        world.sandbox.control.setChannelCommission(0);
      }
    });

    it('takes the test coupon off the accommodation', async () => {
      const dates = stay(41, 3);
      const plain = await site(0)
        .quote({ listingId: 'lst-seaside', ...dates, guestsCount: 1 })
        .expect(201);
      const coupon = await site(0)
        .quote({ listingId: 'lst-seaside', ...dates, guestsCount: 1, coupon: 'SANDBOX10' })
        .expect(201);
      expect(coupon.body.ratePlans[0].breakdown.discount).toBeGreaterThan(plain.body.ratePlans[0].breakdown.discount);
      expect(coupon.body.ratePlans[0].total).toBeLessThan(plain.body.ratePlans[0].total);
      expect(coupon.body).toMatchObject({ coupon: 'SANDBOX10', couponApplied: true });
      expect(coupon.body.couponMessage).toBeUndefined();
      expect(plain.body.couponApplied).toBeUndefined();
    });

    it('refuses a body over the documented 32 KiB with 413 before any upstream quote', async () => {
      const before = count('createQuote');
      const big = await site(0)
        .quote({ listingId: 'lst-seaside', ...stay(45, 2), guestsCount: 1, coupon: 'X'.repeat(33 * 1024) })
        .expect(413);
      expect(big.body.code).toBe('payload_too_large');
      expect(count('createQuote')).toBe(before);
    });

    it('says so in the quote when the platform does not take a coupon, with the prices without it', async () => {
      const dates = stay(44, 3);
      const plain = await site(0)
        .quote({ listingId: 'lst-seaside', ...dates, guestsCount: 1 })
        .expect(201);
      const unknown = await site(0)
        .quote({ listingId: 'lst-seaside', ...dates, guestsCount: 1, coupon: 'TYPO10' })
        .expect(201);
      expect(unknown.body).toMatchObject({
        coupon: 'TYPO10',
        couponApplied: false,
        couponMessage: 'The coupon TYPO10 is not valid for this stay; the prices shown are without it.',
      });
      expect(unknown.body.ratePlans.map((plan: { total: number }) => plan.total)).toEqual(
        plain.body.ratePlans.map((plan: { total: number }) => plan.total),
      );
    });

    it('reuses a valid quote for an identical request, on any replica, without a second upstream quote', async () => {
      const body = { listingId: 'lst-seaside', ...stay(42, 2), guestsCount: 3 };
      const first = await site(0).quote(body).expect(201);
      const before = count('createQuote');
      const again = await site(1).quote(body).expect(201);
      expect(again.body.id).toBe(first.body.id);
      expect(count('createQuote')).toBe(before);
      const other = await site(1)
        .quote({ ...body, guestsCount: 4 })
        .expect(201);
      expect(other.body.id).not.toBe(first.body.id);
    });

    const past = new Date(Date.now() - 2 * 24 * 3600 * 1000).toISOString().slice(0, 10);
    const BAD: { name: string; body: Record<string, unknown>; field: string }[] = [
      { name: 'a check-in that is not a calendar date', body: { checkIn: '2031-02-30', checkOut: '2031-03-02' }, field: 'checkIn' },
      { name: 'a check-out that is not a date', body: { checkOut: 'tomorrow' }, field: 'checkOut' },
      { name: 'a check-in in the past', body: { checkIn: past }, field: 'checkIn' },
      {
        name: 'a check-out not after the check-in',
        body: { checkOut: stay(50, 0).checkIn, checkIn: stay(50, 0).checkIn },
        field: 'checkOut',
      },
      { name: 'more than 365 nights', body: stay(50, 366), field: 'checkOut' },
      { name: 'no guests', body: { guestsCount: 0 }, field: 'guestsCount' },
      { name: '51 guests', body: { guestsCount: 51 }, field: 'guestsCount' },
      { name: 'a fractional guest count', body: { guestsCount: 1.5 }, field: 'guestsCount' },
      { name: 'a listing id that is not an id', body: { listingId: '../etc' }, field: 'listingId' },
      { name: 'a coupon that is an object', body: { coupon: { code: 'X' } }, field: 'coupon' },
      { name: 'an unknown field', body: { price: 1 }, field: 'price' },
    ];

    it.each(BAD)('refuses $name with 400 validation_failed, nothing sent upstream, nothing stored', async ({ body, field }) => {
      const before = upstreamRequests(world);
      const keysBefore = (await world.apps[0].redisKeys()).sort();
      const answer = await site(0).quote({ listingId: 'lst-seaside', ...stay(50, 3), guestsCount: 2, ...body });
      expect(answer.status).toBe(400);
      expect(answer.body.code).toBe('validation_failed');
      expectOneMessageFor(answer.body.errors, field);
      expect(upstreamRequests(world)).toBe(before);
      expect(keysAdded(keysBefore, await world.apps[0].redisKeys())).toEqual([]);
    });

    it('answers 409 dates_unavailable for booked or blocked days, without spending a token', async () => {
      const minted = world.sandbox.control.counters.tokensMinted;
      const blocked = await site(0).quote({ listingId: 'lst-seaside', ...stay(7, 3), guestsCount: 2 });
      expect(blocked.status).toBe(409);
      expect(blocked.body.code).toBe('dates_unavailable');
      expect(blocked.body.detail).toMatch(/not available/);
      expect(world.sandbox.control.counters.tokensMinted).toBe(minted);
    });

    it("answers 422 stay_not_allowed, stay_too_short with the arrival day's minNights, for a stay shorter than it; nothing booked or kept", async () => {
      const minted = world.sandbox.control.counters.tokensMinted;
      const mark = log().length;
      const keysBefore = await world.apps[0].redisKeys();
      const short = await site(0).quote({ listingId: 'lst-seaside', ...stay(55, 1), guestsCount: 2 });
      expect(short.status).toBe(422);
      expect(short.body).toMatchObject({ code: 'stay_not_allowed', reason: 'stay_too_short', minNights: 2 });
      expect(short.body.detail).toMatch(/at least 2 nights/);
      // The platform's own words go to the log, not the guest.
      expect(short.body.detail).not.toMatch(/minimum stay is 2/);
      expect(world.sandbox.control.counters.tokensMinted).toBe(minted);
      // Asked: the quote the platform refused, and the calendar's month for its minimum; nothing else, and no quote kept.
      expect(
        log()
          .slice(mark)
          .filter((entry) => !['createQuote', 'calendar'].includes(entry.route)),
      ).toEqual([]);
      expect(keysAdded(keysBefore, await world.apps[0].redisKeys()).filter((key) => !key.includes('calendar'))).toEqual([]);
    });

    it('names no number it was not given: a refusal for nights the calendar allows stays stay_not_allowed without a reason', async () => {
      world.sandbox.control.forceStatus('createQuote', 400, {
        times: 1,
        body: { message: 'Reservation terms violated: too many nights', code: 'MAX_NIGHTS_EXCEEDED' },
      });
      const long = await site(0).quote({ listingId: 'lst-seaside', ...stay(57, 3), guestsCount: 2 });
      expect(long.status).toBe(422);
      expect(long.body.code).toBe('stay_not_allowed');
      expect(long.body.detail).toMatch(/number of nights/);
      expect(long.body).not.toHaveProperty('reason');
      expect(long.body).not.toHaveProperty('maxNights');
    });
  });

  describe('refusals never cost a token', () => {
    it('reads a bare 401 on the reservation create, just after the token answered, as the booking refused: 409 booking_refused, no token minted, no platform words shown', async () => {
      const quote = await quoteFor(140);
      const minted = world.sandbox.control.counters.tokensMinted;
      world.sandbox.control.forceStatus('reservationFromQuote', 401, {
        times: 1,
        body: { error: { code: 'UNAUTHORIZED', message: 'Unauthorized' } },
      });
      const refused = await site(0).book({ quoteId: quote.id, guest: newGuest() });
      expect(refused.status).toBe(409);
      expect(refused.body.code).toBe('booking_refused');
      expect(JSON.stringify(refused.body)).not.toMatch(/unauthori[sz]ed/i);
      expect(world.sandbox.control.counters.tokensMinted).toBe(minted);
    });

    it('reads a 400 without words about dates or terms on a quote, just after the token answered, as the booking refused', async () => {
      await quoteFor(144);
      const minted = world.sandbox.control.counters.tokensMinted;
      world.sandbox.control.forceStatus('createQuote', 400, { times: 1, body: { message: 'Request failed', code: 'BAD_REQUEST' } });
      const refused = await site(0).quote({ listingId: 'lst-seaside', ...stay(146, 3), guestsCount: 2 });
      expect(refused.status).toBe(409);
      expect(refused.body.code).toBe('booking_refused');
      expect(refused.body.detail).not.toMatch(/Request failed/);
      expect(world.sandbox.control.counters.tokensMinted).toBe(minted);
    });

    it('re-mints once for an answer that names the token, and books with the new one', async () => {
      const quote = await quoteFor(150);
      const minted = world.sandbox.control.counters.tokensMinted;
      world.sandbox.control.forceStatus('reservationFromQuote', 401, { times: 1, body: { message: 'Access Token is expired' } });
      const booked = await site(0).book({ quoteId: quote.id, guest: newGuest() });
      expect(booked.status).toBe(201);
      expect(booked.body.booking.status).toBe('reserved');
      expect(world.sandbox.control.counters.tokensMinted).toBe(minted + 1);
    });
  });

  describe('booking a quote', () => {
    it('refuses a 40-night stay above the online limit as stay_too_long with maxNights, naming no setting; nothing sent upstream or kept', async () => {
      const quote = await quoteFor(420, 40);
      const before = upstreamRequests(world);
      const keysBefore = await world.apps[0].redisKeys();
      const refused = await site(0).book({ quoteId: quote.id, guest: newGuest() });
      expect(refused.status).toBe(422);
      expect(refused.body).toMatchObject({ code: 'stay_not_allowed', reason: 'stay_too_long', maxNights: 31 });
      expect(refused.body.detail).toMatch(/longer than 31 nights/);
      expect(refused.body.detail).not.toMatch(/[A-Z]+_[A-Z_]+/);
      expect(upstreamRequests(world)).toBe(before);
      expect(keysAdded(keysBefore, await world.apps[0].redisKeys()).filter((key) => !key.includes('{limit:'))).toEqual([]);
    });

    it('creates one guest, one held reservation, one card, one confirmation, with the confirmation spaced from the card at the platform', async () => {
      const quote = await quoteFor(60);
      const guest = newGuest();
      const plan = quote.ratePlans[1];
      const logStart = log().length;
      const booked = await site(0).book({ quoteId: quote.id, ratePlanId: plan.id, guest }).expect(201);
      expect(booked.body).toMatchObject({
        status: 'requires_payment_method',
        amount: plan.total,
        currency: 'USD',
        listingId: 'lst-seaside',
      });
      expect(booked.body.booking).toMatchObject({ status: 'reserved', ...stay(60, 3) });
      expect(booked.body.booking.confirmationCode).toMatch(/^SBX-/);
      const holdEnds = Date.parse(booked.body.booking.holdExpiresAt);
      expect(holdEnds - Date.now()).toBeGreaterThan(25 * 60_000);
      expect(holdEnds - Date.now()).toBeLessThanOrEqual(30 * 60_000 + 5_000);
      const reservationId = booked.body.booking.reservationId as string;
      expect(booked.body.reservationId).toBe(reservationId);
      expect(world.sandbox.control.getReservation(reservationId)).toMatchObject({ status: 'reserved', money: { balanceDue: plan.total } });

      const paid = await site(1).submit(booked.body.id, cardBody(CARDS.noThreeDs)).expect(200);
      expect(paid.body).toMatchObject({ status: 'succeeded', booking: { reservationId } });
      await waitUntil(async () => (await site(0).session(booked.body.id)).body.booking?.status === 'confirmed', 10_000, 'the confirmation');
      expect(world.sandbox.control.getReservation(reservationId)).toMatchObject({ status: 'confirmed' });

      const guests = world.sandbox.control.getGuestsByEmail(guest.email);
      expect(guests).toHaveLength(1);
      expect(
        world.sandbox.control.getPaymentMethods(guests[0]._id as string).filter((method) => method.reservationId === reservationId),
      ).toHaveLength(1);
      const writes = log()
        .slice(logStart)
        .filter((entry) => ['reservationFromQuote', 'paymentMethods', 'reservationStatus'].includes(entry.route));
      expect(writes.map((entry) => entry.route)).toEqual(['reservationFromQuote', 'paymentMethods', 'reservationStatus']);
      expect(
        log()
          .slice(logStart)
          .filter((entry) => entry.route === 'guests'),
      ).toHaveLength(1);
      // The guest's own writes wait for no spacing; the confirmation, a background write, is spaced from the card.
      expect(writes[2].time - writes[1].time).toBeGreaterThanOrEqual(SPACING_MS - 10);
    });

    it('merges the guest by email: a returning guest is not created twice', async () => {
      const guest = newGuest();
      await site(0)
        .book({ quoteId: (await quoteFor(64)).id, guest })
        .expect(201);
      await site(0)
        .book({ quoteId: (await quoteFor(68)).id, guest: { ...guest, email: guest.email.toUpperCase() } })
        .expect(201);
      expect(world.sandbox.control.getGuestsByEmail(guest.email)).toHaveLength(1);
    });

    it('answers the same key on another replica with the same session, and no second reservation', async () => {
      const quote = await quoteFor(144);
      const key = randomUUID();
      const body = { quoteId: quote.id, guest: newGuest() };
      const first = await site(0).book(body, key).expect(201);
      const before = count('reservationFromQuote');
      const again = await site(1).book(body, key).expect(201);
      expect(again.body.id).toBe(first.body.id);
      expect(again.body.booking.reservationId).toBe(first.body.booking.reservationId);
      expect(count('reservationFromQuote')).toBe(before);
    });

    it('makes one reservation for two concurrent requests with the same key', async () => {
      const quote = await quoteFor(76);
      const key = randomUUID();
      const body = { quoteId: quote.id, guest: newGuest() };
      const before = count('reservationFromQuote');
      const answers = await Promise.all([site(0).book(body, key), site(1).book(body, key)]);
      expect(answers.map((answer) => answer.status).sort()).toEqual(expect.arrayContaining([201]));
      for (const answer of answers) expect([201, 409]).toContain(answer.status);
      expect(count('reservationFromQuote')).toBe(before + 1);
    });

    it('checks the listing’s payment account before anything is created: an inactive one answers payment_account_unavailable with no guest and no reservation', async () => {
      const answer = await site(0)
        .quote({ listingId: 'lst-closed', ...stay(88, 3), guestsCount: 2 })
        .expect(201);
      const guest = newGuest();
      const writes = () => count('guests') + count('reservationFromQuote');
      const before = writes();
      const refused = await site(1).book({ quoteId: answer.body.id, guest });
      expect(refused.status).toBe(502);
      expect(refused.body.code).toBe('payment_account_unavailable');
      expect(writes()).toBe(before);
      expect(world.sandbox.control.getGuestsByEmail(guest.email)).toHaveLength(0);
    });

    it('answers 409 quote_used to another key for a booked quote, with nothing sent', async () => {
      const quote = await quoteFor(80);
      await site(0).book({ quoteId: quote.id, guest: newGuest() }).expect(201);
      const before = upstreamRequests(world);
      const other = await site(1).book({ quoteId: quote.id, guest: newGuest() });
      expect(other.status).toBe(409);
      expect(other.body.code).toBe('quote_used');
      expect(upstreamRequests(world)).toBe(before);
    });

    it('resolves a lost create answer by re-reading the quote, never by a second create', async () => {
      const quote = await quoteFor(84);
      const before = count('reservationFromQuote');
      world.sandbox.control.dropConnection('reservationFromQuote', { afterHandling: true, times: 1 });
      const booked = await site(0).book({ quoteId: quote.id, guest: newGuest() }).expect(201);
      expect(count('reservationFromQuote')).toBe(before + 1);
      expect(count('quote')).toBeGreaterThanOrEqual(1);
      expect(booked.body.booking.confirmationCode).toMatch(/^SBX-/);
      expect(world.sandbox.control.getReservation(booked.body.booking.reservationId)).toMatchObject({ status: 'reserved' });
    });

    const BAD: { name: string; body: (quoteId: string) => Record<string, unknown>; field: string }[] = [
      { name: 'no guest', body: (quoteId) => ({ quoteId }), field: 'guest' },
      {
        name: 'a guest without an email',
        body: (quoteId) => ({ quoteId, guest: { firstName: 'A', lastName: 'B' } }),
        field: 'guest.email',
      },
      {
        name: 'a guest with a bad email',
        body: (quoteId) => ({ quoteId, guest: newGuest({ email: 'not-an-email' }) }),
        field: 'guest.email',
      },
      { name: 'an empty first name', body: (quoteId) => ({ quoteId, guest: newGuest({ firstName: '' }) }), field: 'guest.firstName' },
      { name: 'a null guest', body: (quoteId) => ({ quoteId, guest: null }), field: 'guest' },
      { name: 'a quote id that is not one', body: () => ({ quoteId: 'x', guest: newGuest() }), field: 'quoteId' },
      {
        name: 'a quote id and a reservation id together',
        body: (quoteId) => ({ quoteId, reservationId: 'res-unpaid', guest: newGuest() }),
        field: 'reservationId',
      },
    ];

    it.each(BAD)('refuses $name with 400, nothing sent upstream, nothing stored', async ({ body, field }) => {
      const quote = await quoteFor(90);
      const before = upstreamRequests(world);
      const keysBefore = (await world.apps[0].redisKeys()).sort();
      const answer = await site(0).book(body(quote.id));
      expect(answer.status).toBe(400);
      expectOneMessageFor(answer.body.errors, field);
      expect(upstreamRequests(world)).toBe(before);
      expect(keysAdded(keysBefore, await world.apps[0].redisKeys())).toEqual([]);
    });

    it('refuses a rate plan the quote does not have, and an unknown quote, with nothing sent', async () => {
      const quote = await quoteFor(94);
      const before = upstreamRequests(world);
      const plan = await site(0).book({ quoteId: quote.id, ratePlanId: 'rp-nope', guest: newGuest() });
      expect(plan.status).toBe(400);
      const unknown = await site(0).book({ quoteId: `q_${'A'.repeat(22)}`, guest: newGuest() });
      expect(unknown.status).toBe(404);
      expect(unknown.body.code).toBe('quote_not_found');
      expect(upstreamRequests(world)).toBe(before);
    });

    it('needs an Idempotency-Key to book', async () => {
      const quote = await quoteFor(98);
      const before = upstreamRequests(world);
      const answer = await bookingClient(world.apps[0].url).book({ quoteId: quote.id, guest: newGuest() }, '');
      expect(answer.status).toBe(400);
      expect(upstreamRequests(world)).toBe(before);
    });

    it('leaves the reservation reserved in request mode', async () => {
      const quote = await quoteFor(102);
      const client = bookingClient(requestMode.url);
      const booked = await client.book({ quoteId: quote.id, guest: newGuest() }).expect(201);
      const paid = await client.submit(booked.body.id, cardBody(CARDS.noThreeDs)).expect(200);
      expect(paid.body).toMatchObject({ status: 'succeeded', booking: { status: 'reserved' } });
      expect(count('reservationStatus')).toBe(log().filter((entry) => entry.route === 'reservationStatus').length);
      expect(world.sandbox.control.getReservation(booked.body.booking.reservationId)).toMatchObject({ status: 'reserved' });
    });
  });

  describe('calendar', () => {
    it('keeps a multi-unit listing’s night available while a unit is left (its allotment, not its status), and refuses it once none is', async () => {
      const nights = stay(160, 2);
      const [from, to] = [nights.checkIn, stay(162, 0).checkIn];
      const free = async () =>
        ((await site(0).calendar('lst-suites', from, to).expect(200)).body.days as { date: string; available: boolean }[]).map(
          (day) => day.available,
        );
      expect(await free()).toEqual([true, true, true]);
      for (let unit = 1; unit <= 3; unit += 1) {
        const quote = await site(0)
          .quote({ listingId: 'lst-suites', ...nights, guestsCount: 1 })
          .expect(201);
        await site(0).book({ quoteId: quote.body.id, guest: newGuest() }).expect(201);
        // The platform's status says `booked` after the first; two units, then one, are still left.
        expect(await free()).toEqual(unit < 3 ? [true, true, true] : [false, false, true]);
      }
      const full = await site(0).quote({ listingId: 'lst-suites', ...nights, guestsCount: 1 });
      expect(full.status).toBe(409);
      expect(full.body.code).toBe('dates_unavailable');
    });

    it('answers the days with prices, minimum nights and availability, and shows a new booking', async () => {
      const { checkIn } = stay(110, 0);
      const { checkIn: to } = stay(125, 0);
      const before = await site(0).calendar('lst-seaside', checkIn, to).expect(200);
      expect(before.body).toMatchObject({ listingId: 'lst-seaside', currency: 'USD' });
      expect(before.body.days).toHaveLength(16);
      expect(before.body.days[0]).toMatchObject({
        date: checkIn,
        available: true,
        minNights: 2,
        checkInAllowed: true,
        checkOutAllowed: true,
      });
      expect(before.body.days[0].price).toBeGreaterThan(0);
      const reads = count('calendar');
      await site(1).calendar('lst-seaside', checkIn, to).expect(200);
      // Read again where the replica now holds the months: its own copy's answer is the same.
      expect((await site(0).calendar('lst-seaside', checkIn, to).expect(200)).body).toEqual(before.body);
      expect(count('calendar')).toBe(reads);

      const quote = await site(0)
        .quote({ listingId: 'lst-seaside', ...stay(112, 3), guestsCount: 2 })
        .expect(201);
      await site(0).book({ quoteId: quote.body.id, guest: newGuest() }).expect(201);
      const after = await site(0).calendar('lst-seaside', checkIn, to).expect(200);
      const taken = (after.body.days as { date: string; available: boolean; checkInAllowed: boolean }[]).filter((day) => !day.available);
      expect(taken.map((day) => day.date)).toEqual([stay(112, 0).checkIn, stay(113, 0).checkIn, stay(114, 0).checkIn]);
      expect(taken.every((day) => !day.checkInAllowed)).toBe(true);
      // Every later read of the same days from the replica's own copy shows the booking too.
      expect((await site(0).calendar('lst-seaside', checkIn, to).expect(200)).body).toEqual(after.body);
      // The service's own booking updated the cached months: the next visitor's read is not a miss.
      expect(count('calendar')).toBe(reads);
    });

    it.each([
      { name: 'a from that is not a date', query: ['2031-13-01', '2031-12-31'] },
      { name: 'a to before from', query: [stay(10, 0).checkIn, stay(5, 0).checkIn] },
      { name: 'more than 366 days', query: [stay(1, 0).checkIn, stay(368, 0).checkIn] },
    ])('refuses $name with 400 and nothing sent', async ({ query }) => {
      const before = upstreamRequests(world);
      const answer = await site(0).calendar('lst-seaside', query[0], query[1]);
      expect(answer.status).toBe(400);
      expect(answer.body.code).toBe('validation_failed');
      expect(upstreamRequests(world)).toBe(before);
    });

    it('refuses a from sent twice, naming the field, with nothing sent', async () => {
      const before = upstreamRequests(world);
      const { checkIn } = stay(10, 0);
      const answer = await request(world.apps[0].url).get(
        `/checkout/listings/lst-seaside/calendar?from=${checkIn}&from=${checkIn}&to=${checkIn}`,
      );
      expect({ status: answer.status, code: answer.body.code, fields: answer.body.errors }).toEqual({
        status: 400,
        code: 'validation_failed',
        fields: [{ field: 'from', message: 'from must be a calendar date (YYYY-MM-DD)' }],
      });
      expect(upstreamRequests(world)).toBe(before);
    });

    it('answers a range with a parameter it does not know (a cache-buster) as the same range', async () => {
      const { checkIn } = stay(10, 0);
      const plain = await site(0).calendar('lst-seaside', checkIn, checkIn).expect(200);
      const busted = await request(world.apps[0].url)
        .get(`/checkout/listings/lst-seaside/calendar?from=${checkIn}&to=${checkIn}&_=1764662400`)
        .expect(200);
      expect(busted.body).toEqual(plain.body);
    });
  });

  describe('the confirmation after the card', () => {
    it('is recorded with the card: when the platform drops the first try, the other replica’s sweep confirms it, once', async () => {
      const quote = await quoteFor(170);
      const booked = await site(0).book({ quoteId: quote.id, guest: newGuest() }).expect(201);
      const reservationId = booked.body.booking.reservationId as string;
      const mark = log().length;
      const confirmations = () =>
        log()
          .slice(mark)
          .filter((entry) => entry.route === 'reservationStatus');
      world.sandbox.control.forceStatus('reservationStatus', 503, { times: 1 });
      await site(1).submit(booked.body.id, cardBody(CARDS.noThreeDs)).expect(200);
      await waitUntil(
        () => Promise.resolve(confirmations().some((entry) => entry.status === 503)),
        10_000,
        'the first confirmation, dropped',
      );
      expect(world.sandbox.control.getReservation(reservationId)).toMatchObject({ status: 'reserved' });
      const due = await world.apps[0].redisContents();
      expect([...due.keys()].filter((key) => key.endsWith('follow-ups:due'))).toHaveLength(1);

      // Replica 1, whose request tried, plays no part: replica 0's sweep finds the confirmation due and sends it.
      await waitUntil(
        async () => {
          for (const clock of world.clocks) clock.advance(FOLLOW_UP_GRACE_MS + 6_000);
          await world.apps[0].app.get(JournalSweep).sweepOnce();
          return world.sandbox.control.getReservation(reservationId)?.status === 'confirmed';
        },
        20_000,
        "the sweep's confirmation",
      );
      const session = await site(0).session(booked.body.id).expect(200);
      expect(session.body.booking.status).toBe('confirmed');
      expect(confirmations().filter((entry) => entry.status === 200)).toHaveLength(1);
      expect([...(await world.apps[0].redisContents()).keys()].filter((key) => key.endsWith('follow-ups:due'))).toEqual([]);
    });
  });

  describe('an ended hold', () => {
    it('answers 409 hold_expired to a card submission, with nothing sent', async () => {
      const quote = await quoteFor(130);
      const booked = await site(0).book({ quoteId: quote.id, guest: newGuest() }).expect(201);
      world.sandbox.control.advanceClock(31 * 60_000);
      for (const clock of world.clocks) clock.advance(31 * 60_000);
      const before = upstreamRequests(world);
      const refused = await site(1).submit(booked.body.id, cardBody(CARDS.noThreeDs));
      expect(refused.status).toBe(409);
      expect(refused.body.code).toBe('hold_expired');
      expect(upstreamRequests(world)).toBe(before);
      // Its Idempotency-Key was claimed in the step that read the session: the refusal released it.
      const ofSession = `session:{${RedisKeys.sessionRef(booked.body.id)}}:idempotency:`;
      expect((await world.apps[0].redisKeys()).filter((key) => key.includes(ofSession))).toEqual([]);
      const session = await site(0).session(booked.body.id).expect(200);
      expect(session.body.booking.status).toBe('expired');
      expect(world.sandbox.control.getReservation(booked.body.booking.reservationId)).toMatchObject({ status: 'expired' });
    });

    it.each([
      {
        how: 'the platform canceled the reservation',
        end: (reservationId: string) => world.sandbox.control.cancelReservation(reservationId),
        shown: 'canceled',
      },
      {
        // Only the platform's clock passed the hold (the replicas' clocks lag it): the platform is believed.
        how: 'the platform ended the hold before the replicas’ clocks say so',
        end: () => world.sandbox.control.advanceClock(31 * 60_000),
        shown: 'expired',
      },
    ])(
      'reads the hold from the platform beside the tokenization: when $how, 409 hold_expired, with no card attached',
      async ({ end, shown }) => {
        const quote = await quoteFor(shown === 'canceled' ? 134 : 138);
        const booked = await site(0).book({ quoteId: quote.id, guest: newGuest() }).expect(201);
        end(booked.body.booking.reservationId as string);
        const [tokenized, attached] = [count('tokenize'), count('paymentMethods')];
        const refused = await site(1).submit(booked.body.id, cardBody(CARDS.noThreeDs));
        expect(refused.status).toBe(409);
        expect(refused.body.code).toBe('hold_expired');
        // Tokenized at most once, beside the read; its single-use token is never attached (docs/upstream.md).
        expect(count('tokenize') - tokenized).toBeLessThanOrEqual(1);
        expect(count('paymentMethods')).toBe(attached);
        const session = await site(0).session(booked.body.id).expect(200);
        expect(session.body).toMatchObject({ status: 'requires_payment_method', booking: { status: shown } });
      },
    );

    it('a hold read that does not answer the reservation (the read answers [] for some that exist): 503 platform_answer_unexpected, no card attached, the booking still reserved', async () => {
      const quote = await quoteFor(146);
      const booked = await site(0).book({ quoteId: quote.id, guest: newGuest() }).expect(201);
      const attached = count('paymentMethods');
      world.sandbox.control.forceStatus('reservation', 200, { body: [], times: 1 });
      const refused = await site(1).submit(booked.body.id, cardBody(CARDS.noThreeDs));
      expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 503, code: 'platform_answer_unexpected' });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(count('paymentMethods')).toBe(attached);
      const session = await site(0).session(booked.body.id).expect(200);
      // Nothing was attached and the hold stands: the guest may press again, never told the booking ended.
      expect(session.body).toMatchObject({
        status: 'failed',
        lastError: { code: 'platform_answer_unexpected' },
        booking: { status: 'reserved' },
      });
      expect(world.sandbox.control.getReservation(booked.body.booking.reservationId)).toMatchObject({ status: 'reserved' });
      await site(1).submit(booked.body.id, cardBody(CARDS.noThreeDs)).expect(200);
      await waitUntil(async () => (await site(0).session(booked.body.id)).body.booking?.status === 'confirmed', 10_000, 'the confirmation');
    });

    it('spends no extra call on it: a booking card costs the reservation read (the attach’s snapshot; the card list on the current surface) and the attach', async () => {
      const quote = await quoteFor(142);
      const booked = await site(0).book({ quoteId: quote.id, guest: newGuest() }).expect(201);
      const logStart = log().length;
      await site(1).submit(booked.body.id, cardBody(CARDS.noThreeDs)).expect(200);
      await waitUntil(async () => (await site(0).session(booked.body.id)).body.booking?.status === 'confirmed', 10_000, 'the confirmation');
      const openApiCalls = log()
        .slice(logStart)
        .map((entry) => entry.route)
        .filter((route) => !['tokenize', 'token', 'providerByListing'].includes(route));
      // The legacy read names each payment's method; the current surface lists the cards on file (docs/upstream.md).
      // The confirmation that follows reads the reservation's status before it is sent (§3.1).
      // On the current surface the card list goes out beside the reservation read, in either order.
      const reads = onSurface({ legacy: ['reservation'], current: ['listPaymentMethods', 'reservation'] });
      expect(openApiCalls.slice(0, reads.length).sort()).toEqual(reads);
      expect(openApiCalls.slice(reads.length)).toEqual(['paymentMethods', 'reservation', 'reservationStatus']);
    });
  });
});
