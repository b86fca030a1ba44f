import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { ForceStatusOptions, SandboxReadings, SandboxRoute } from '../../sandbox/types';
import { CardsOnFile } from '../../src/sessions/cards-on-file';
import { bookingClient, newGuest, stay } from '../booking/booking-client';
import { ADMIN_KEY, adminClient, invoiceItemsAt } from '../invoices/invoice-test-helpers';
import { SandboxClient } from '../sandbox/sandbox-helpers';
import { CARDS, cardBody, checkoutClient, freshReservation, sessionsStoredFor } from '../utils/checkout-client';
import { startSandboxedApps, type SandboxedApps } from '../utils/sandboxed-apps';

/**
 * A belief about the platform that the account contradicts (docs/upstream.md): a 404 where the
 * reservation exists, a 400 naming a field, a 2xx without a needed field. The guest gets 503
 * `platform_answer_unexpected` with Retry-After; nothing is sent or kept on its word; the operator
 * sees one log line, the metric and `GET /health`. Both surfaces, in one file.
 */

const MY_READINGS: Pick<SandboxReadings, 'guestEmailIn' | 'guestEmailField' | 'methodNames'> = {
  guestEmailIn: 'single',
  guestEmailField: 'email',
  methodNames: 'code',
};

function worldOn(surface: 'current' | 'legacy'): Promise<SandboxedApps> {
  // Limits no test here meets: each test reads on its own, and only what it forces is under test.
  return startSandboxedApps(1, {
    sandbox: {
      paymentVisibilityDelayMs: 0,
      legacyRoutes: surface === 'legacy' ? 'served' : 'retired',
      rateLimits: { perSecond: 1000, perMinute: 60_000, perHour: 1_000_000 },
    },
    env: {
      GUESTY_API_SURFACE: surface,
      ADMIN_API_KEY: ADMIN_KEY,
      UPSTREAM_RATE_LIMITS: '1000/s,60000/m,1000000/h',
      CHECKOUT_IP_RATE_LIMIT: '1000/m',
      CHECKOUT_CARD_ATTEMPTS: '100/h',
      CHECKOUT_RESERVATION_MISSES_PER_IP: '1000/h',
      CHECKOUT_SESSIONS_PER_RESERVATION: '100/h',
    },
  });
}

/** What the operator and the platform saw of one loud answer, read before and after it. */
class Witness {
  private calls = 0;
  private counted = 0;
  private logged = 0;

  constructor(
    private readonly world: SandboxedApps,
    private readonly operation: string,
  ) {}

  private get url(): string {
    return this.world.apps[0].url;
  }

  private async count(): Promise<number> {
    const metrics = (await request(this.url).get('/metrics').expect(200)).text;
    const line = metrics.split('\n').find((text) => text.startsWith(`upstream_unexpected_answers_total{operation="${this.operation}"}`));
    return line ? Number(line.split(' ').pop()) : 0;
  }

  private lines(): Record<string, unknown>[] {
    return this.world.apps[0].logs.entries().filter((entry) => entry.context === 'PlatformAnswers' && entry.operation === this.operation);
  }

  async before(): Promise<this> {
    this.calls = this.world.sandbox.control.requestLog.length;
    this.counted = await this.count();
    this.logged = this.lines().length;
    return this;
  }

  /** The guest's answer, the metric, the one log line with what came back, `/health`, and no write sent. */
  async expectLoud(
    answer: request.Response,
    found: { upstreamStatus?: number; missingField?: RegExp; namedField?: string },
  ): Promise<void> {
    expect(answer.status).toBe(503);
    expect(answer.body.code).toBe('platform_answer_unexpected');
    expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
    // At least the guest's read: a background read of an earlier case (a payment-status refresh)
    // may meet the same forced answer on a loaded machine, and is as loud.
    expect(await this.count()).toBeGreaterThanOrEqual(this.counted + 1);
    const lines = this.lines().slice(this.logged);
    expect(lines.length).toBeGreaterThanOrEqual(1);
    expect(lines[0]).toMatchObject({
      level: 'error',
      ...(found.upstreamStatus ? { upstreamStatus: found.upstreamStatus } : {}),
      ...(found.namedField ? { namedField: found.namedField } : {}),
    });
    if (found.missingField) expect(lines[0].missingField).toMatch(found.missingField);
    expect(JSON.stringify(lines[0])).not.toMatch(/Bearer|secret|4242424242424242/i);
    const health = await request(this.url).get('/health').expect(200);
    expect(health.body.status).toBe('platform_answers_unexpected');
    expect(health.body.platformAnswersUnexpected).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ operation: this.operation, lastAt: expect.any(String), found: expect.stringMatching(/\S/) }),
      ]),
    );
    // A card's token may be made before the check (it charges nothing); no write on the reservation follows.
    const writes = this.world.sandbox.control.requestLog
      .slice(this.calls)
      .filter((call) => call.method !== 'GET' && !['token', 'tokenize'].includes(call.route));
    expect(writes).toEqual([]);
  }
}

describe('the platform answering unexpectedly, on the current surface', () => {
  let world: SandboxedApps;

  beforeAll(async () => {
    world = await worldOn('current');
  });
  afterAll(() => world.close());
  afterEach(() => {
    world.sandbox.control.clearFaults();
    world.sandbox.control.setReadings(MY_READINGS);
  });

  const site = () => checkoutClient(world.apps[0].url);
  const force = (route: SandboxRoute, status: number, options?: ForceStatusOptions) =>
    world.sandbox.control.forceStatus(route, status, options);

  it('does not open a session asking for the whole total of a reservation paid in full when GET /payments answers 404', async () => {
    const witness = await new Witness(world, 'listPayments').before();
    force('payments', 404, { body: { message: 'Not Found' } });
    const answer = await site().createSession('res-paid', 'paula@example.com');
    await witness.expectLoud(answer, { upstreamStatus: 404 });
    expect(await sessionsStoredFor(world, 'res-paid')).toBe(0);
  });

  it('reads no payment without its status as nothing paid', async () => {
    const witness = await new Witness(world, 'listPayments').before();
    force('payments', 200, { body: [{ _id: 'pay-1', amount: 638 }] });
    const answer = await site().createSession('res-paid', 'paula@example.com');
    await witness.expectLoud(answer, { missingField: /status/ });
    expect(await sessionsStoredFor(world, 'res-paid')).toBe(0);
  });

  it('reads a payments answer that carries no list as no list, not as an empty one', async () => {
    const witness = await new Witness(world, 'listPayments').before();
    force('payments', 200, { body: { totalPaid: 638 } });
    const answer = await site().createSession('res-paid', 'paula@example.com');
    await witness.expectLoud(answer, { missingField: /list/ });
  });

  it('takes a 400 naming a field of the folio overview for the operator, not the guest', async () => {
    const reservation = freshReservation(world, 250);
    const witness = await new Witness(world, 'getFolioOverview').before();
    force('folioOverview', 400, {
      body: { message: 'Some of the request parameters are invalid', details: [{ field: 'fields', message: 'unknown: subTotalPrice' }] },
    });
    const answer = await site().createSession(reservation.reservationId, reservation.guestEmail);
    await witness.expectLoud(answer, { upstreamStatus: 400, namedField: 'fields' });
    expect(await sessionsStoredFor(world, reservation.reservationId)).toBe(0);
  });

  it('reads an overview without the line of a reservation that exists (listed in notFound) as unexpected', async () => {
    const reservation = freshReservation(world, 250);
    const witness = await new Witness(world, 'getFolioOverview').before();
    force('folioOverview', 200, { body: { results: [], notFound: [reservation.reservationId] } });
    const answer = await site().createSession(reservation.reservationId, reservation.guestEmail);
    await witness.expectLoud(answer, { missingField: /line/ });
    expect(await sessionsStoredFor(world, reservation.reservationId)).toBe(0);
  });

  it('reads a reservation without its confirmation code as unexpected', async () => {
    const reservation = freshReservation(world, 250);
    const witness = await new Witness(world, 'getReservationsV3').before();
    force('reservation', 200, {
      body: [{ _id: reservation.reservationId, status: 'confirmed', bookerId: reservation.guestId, stay: [] }],
    });
    const answer = await site().createSession(reservation.reservationId, reservation.guestEmail);
    await witness.expectLoud(answer, { missingField: /confirmationCode/ });
    expect(await sessionsStoredFor(world, reservation.reservationId)).toBe(0);
  });

  it('still answers reservation_not_found where the reservation read answers no reservation (no id can be probed)', async () => {
    const reservation = freshReservation(world, 250);
    force('reservation', 200, { body: [] });
    const answer = await site().createSession(reservation.reservationId, reservation.guestEmail).expect(404);
    expect(answer.body.code).toBe('reservation_not_found');
  });

  it("adds no invoice item when the folio's items answer 404 for a reservation that exists", async () => {
    const reservation = freshReservation(world, 250);
    const before = invoiceItemsAt(world, reservation.reservationId).length;
    const witness = await new Witness(world, 'getFolioInvoiceItems').before();
    force('folioItems', 404, { body: { message: 'Not Found' } });
    const answer = await adminClient(world.apps[0].url).addItem(reservation.reservationId, {
      normalType: 'CF',
      title: 'Late checkout',
      amount: 40,
    });
    await witness.expectLoud(answer, { upstreamStatus: 404 });
    expect(invoiceItemsAt(world, reservation.reservationId)).toHaveLength(before);
  });

  describe.each([
    ['single', 'email'],
    ['single', 'guestEmail'],
    ['list', 'email'],
    ['list', 'guestEmail'],
  ] as const)("with the guest's email in the %s read under `%s`", (guestEmailIn, guestEmailField) => {
    it('opens the session and attaches the card', async () => {
      world.sandbox.control.setReadings({ guestEmailIn, guestEmailField });
      const reservation = freshReservation(world, 275);
      const from = world.sandbox.control.requestLog.length;
      const created = await site().createSession(reservation.reservationId, reservation.guestEmail).expect(201);
      expect(created.body).toMatchObject({ amount: 275, currency: 'USD' });
      const readLists = world.sandbox.control.requestLog.slice(from).some((call) => call.route === 'guestsList');
      expect(readLists).toBe(guestEmailIn === 'list');
      const paid = await site().submit(created.body.id, cardBody(CARDS.noThreeDs)).expect(200);
      expect(paid.body.status).toBe('succeeded');
      expect(world.sandbox.control.getPaymentMethods(reservation.guestId)).toHaveLength(1);
    });

    it('still answers a wrong email as an unknown reservation', async () => {
      world.sandbox.control.setReadings({ guestEmailIn, guestEmailField });
      const reservation = freshReservation(world, 275);
      const refused = await site().createSession(reservation.reservationId, 'someone-else@example.com').expect(404);
      expect(refused.body.code).toBe('reservation_not_found');
    });
  });

  it.each([
    ['the single read answers 404', 'getGuest', 'guest', { upstreamStatus: 404 }],
    ['the list answers 404', 'listGuestEmail', 'guestsList', { upstreamStatus: 404 }],
  ] as const)('answers an email it cannot read as unexpected, never as not found: %s', async (_name, operation, route, found) => {
    if (route === 'guestsList') world.sandbox.control.setReadings({ guestEmailIn: 'list' });
    const reservation = freshReservation(world, 180);
    const witness = await new Witness(world, operation).before();
    force(route, 404, { body: { message: 'Not Found' } });
    const answer = await site().createSession(reservation.reservationId, reservation.guestEmail);
    await witness.expectLoud(answer, found);
    expect(await sessionsStoredFor(world, reservation.reservationId)).toBe(0);
  });

  it.each([
    [
      'without the row of that guest (a filter it ignored)',
      () => ({ results: [{ _id: 'guest-someone-else', guestEmail: 'x@example.com' }], total: 1 }),
      /row/,
    ],
    ['with the row but no email under either name', (guestId: string) => ({ results: { 0: { _id: guestId } }, total: 1 }), /guestEmail/],
    ['with no results at all', () => ({ total: 0 }), /results/],
  ])('answers a guest list %s as unexpected', async (_name, body, missingField) => {
    world.sandbox.control.setReadings({ guestEmailIn: 'list' });
    const reservation = freshReservation(world, 180);
    const witness = await new Witness(world, 'listGuestEmail').before();
    force('guestsList', 200, { body: body(reservation.guestId) });
    const answer = await site().createSession(reservation.reservationId, reservation.guestEmail);
    await witness.expectLoud(answer, { missingField });
    expect(await sessionsStoredFor(world, reservation.reservationId)).toBe(0);
  });
});

describe.each(['current', 'legacy'] as const)('the cards on a reservation, on the %s surface', (surface) => {
  let world: SandboxedApps;

  beforeAll(async () => {
    world = await worldOn(surface);
  });
  afterAll(() => world.close());
  afterEach(() => {
    world.sandbox.control.clearFaults();
    world.sandbox.control.holdCharges(false);
    world.sandbox.control.setReadings(MY_READINGS);
  });

  const site = () => checkoutClient(world.apps[0].url);
  const onFile = (reservationId: string) => world.apps[0].app.get(CardsOnFile).onFile(reservationId);

  it.each(['code', 'reservationId', 'both'] as const)('attaches a card where the methods name their booking by %s', async (methodNames) => {
    world.sandbox.control.setReadings({ methodNames });
    const reservation = freshReservation(world, 310);
    const created = await site().createSession(reservation.reservationId, reservation.guestEmail).expect(201);
    const paid = await site().submit(created.body.id, cardBody(CARDS.noThreeDs)).expect(200);
    expect(paid.body.status).toBe('succeeded');
    expect(world.sandbox.control.getPaymentMethods(reservation.guestId)).toHaveLength(1);
  });

  it.each(['code', 'reservationId', 'both'] as const)(
    'still sees a card another channel put on the booking where methods name it by %s, attaching nothing',
    async (methodNames) => {
      world.sandbox.control.setReadings({ methodNames });
      const reservation = freshReservation(world, 300);
      world.sandbox.control.holdCharges(true);
      await new SandboxClient(world.sandbox).payWithCard(reservation.reservationId, CARDS.noThreeDs);
      const created = await site().createSession(reservation.reservationId, reservation.guestEmail).expect(201);
      const refused = await site().submit(created.body.id, cardBody('5555555555554444')).expect(409);
      expect(refused.body.code).toBe('already_paid');
      expect(world.sandbox.control.getPaymentMethods(reservation.guestId)).toHaveLength(1);
    },
  );

  it('answers methods naming no booking as unexpected and attaches no second card', async () => {
    world.sandbox.control.setReadings({ methodNames: 'neither' });
    const reservation = freshReservation(world, 300);
    world.sandbox.control.holdCharges(true);
    await new SandboxClient(world.sandbox).payWithCard(reservation.reservationId, CARDS.noThreeDs);
    const created = await site().createSession(reservation.reservationId, reservation.guestEmail).expect(201);
    const witness = await new Witness(world, 'listPaymentMethods').before();
    const answer = await site().submit(created.body.id, cardBody('5555555555554444'));
    await witness.expectLoud(answer, { missingField: /reservationId or confirmationCode/ });
    expect(world.sandbox.control.getPaymentMethods(reservation.guestId)).toHaveLength(1);
    expect(await onFile(reservation.reservationId)).toBeFalsy();
  });

  it('attaches nothing when the one-card check before the attach answers 404', async () => {
    const reservation = freshReservation(world, 300);
    const created = await site().createSession(reservation.reservationId, reservation.guestEmail).expect(201);
    const witness = await new Witness(world, 'listPaymentMethods').before();
    world.sandbox.control.forceStatus('listPaymentMethods', 404, { body: { message: 'Not Found' } });
    const answer = await site().submit(created.body.id, cardBody(CARDS.noThreeDs));
    await witness.expectLoud(answer, { upstreamStatus: 404 });
    expect(world.sandbox.control.getPaymentMethods(reservation.guestId)).toHaveLength(0);
    expect(await onFile(reservation.reservationId)).toBeFalsy();
  });
});

describe('a guest create whose answer was lost, found in a guest list that names the email guestEmail', () => {
  let world: SandboxedApps;

  beforeAll(async () => {
    // A record per create: a find that missed the guest would make a second one.
    world = await startSandboxedApps(1, {
      sandbox: { paymentVisibilityDelayMs: 0, mergeGuestsByEmail: false },
      env: { UPSTREAM_TIMEOUT_MS: '1000', UPSTREAM_DEADLINE_MS: '1000', RESERVATION_LEASE_MS: '1000', RESERVATION_WRITE_SPACING_MS: '0' },
    });
    world.sandbox.control.setReadings({ guestEmailField: 'guestEmail' });
  });
  afterAll(() => world.close());

  it('books once, for the one guest record the platform made', async () => {
    const booking = bookingClient(world.apps[0].url);
    const quote = await booking.quote({ listingId: 'lst-city', ...stay(90, 2), guestsCount: 2 }).expect(201);
    const guest = newGuest();
    const body = { quoteId: quote.body.id as string, guest };
    const key = randomUUID();
    world.sandbox.control.dropConnection('guests', { times: 1, afterHandling: true });
    const first = await booking.book(body, key);
    const retried = await booking.book(body, key).expect(201);
    if (first.status === 201) expect(first.body.id).toBe(retried.body.id);
    expect(world.sandbox.control.getGuestsByEmail(guest.email)).toHaveLength(1);
    expect(world.sandbox.control.counters.requests.guests).toBe(1);
  });
});
