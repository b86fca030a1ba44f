import { CARDS, cardBody, checkoutClient, expectSecondCardRefused, freshReservation } from '../utils/checkout-client';
import { SandboxClient } from '../sandbox/sandbox-helpers';
import { startSandboxedApps, type SandboxedApps } from '../utils/sandboxed-apps';

/**
 * The platform of 1 March 2027 (docs/upstream.md, "The surface of 2027"): with
 * GUESTY_API_SURFACE=current the service reads reservations through Reservations V3, the guest, the
 * guest folio and the payments list, and attaches and lists cards through the payments API, while
 * the legacy routes answer 404 "retired" as they will after the sunset.
 */
describe.each([
  ['honours', 'honoured'],
  ['ignores', 'ignored'],
] as const)('the current surface, with legacy routes retired, a payment-method list that %s its filter', (_name, filter) => {
  let world: SandboxedApps;

  beforeAll(async () => {
    world = await startSandboxedApps(2, {
      sandbox: { paymentVisibilityDelayMs: 0, legacyRoutes: 'retired' },
      env: { GUESTY_API_SURFACE: 'current' },
    });
    world.sandbox.control.setReadings({ methodListFilter: filter });
  });
  afterAll(() => world.close());

  const site = (replica = 0) => checkoutClient(world.apps[replica].url);
  const callsSince = (from: number) => world.sandbox.control.requestLog.slice(from);

  it('pays a reservation through the current calls alone, and attaches the card once', async () => {
    const reservation = freshReservation(world, 420);
    const from = world.sandbox.control.requestLog.length;
    const created = await site(0).createSession(reservation.reservationId, reservation.guestEmail).expect(201);
    expect(created.body).toMatchObject({ amount: 420, currency: 'USD' });
    const paid = await site(1).submit(created.body.id, cardBody(CARDS.noThreeDs)).expect(200);
    expect(paid.body.status).toBe('succeeded');
    expect(world.sandbox.control.getPaymentMethods(reservation.guestId)).toHaveLength(1);
    // Every call answered (a retired route answers 404), and the current operations carried the checkout.
    const calls = callsSince(from);
    expect(calls.filter((call) => call.status >= 400)).toEqual([]);
    expect(calls.map((call) => call.route)).toEqual(
      expect.arrayContaining(['reservation', 'guest', 'folioOverview', 'payments', 'paymentMethods']),
    );
  });

  it("takes a returning guest's card of another booking for no card of this one", async () => {
    const email = `returning-${Date.now()}@example.com`;
    const earlier = world.sandbox.control.createReservation({
      listingId: 'lst-seaside',
      guestEmail: email,
      balanceDue: 200,
      currency: 'USD',
    });
    const later = world.sandbox.control.createReservation({
      listingId: 'lst-seaside',
      guestEmail: email,
      balanceDue: 300,
      currency: 'USD',
    });
    expect(later.guestId).toBe(earlier.guestId);
    const platform = new SandboxClient(world.sandbox);
    expect((await platform.payWithCard(earlier.reservationId, CARDS.noThreeDs)).attach.status).toBe(201);

    const created = await site(0).createSession(later.reservationId, email).expect(201);
    const paid = await site(1).submit(created.body.id, cardBody('5555555555554444')).expect(200);
    expect(paid.body.status).toBe('succeeded');
    const methods = world.sandbox.control.getPaymentMethods(later.guestId);
    expect(methods.filter((method) => method.reservationId === later.reservationId)).toHaveLength(1);
    expect(methods.filter((method) => method.reservationId === earlier.reservationId)).toHaveLength(1);
  });

  it('still refuses a second card where this booking has one at the platform, attaching nothing', () => expectSecondCardRefused(world));

  it('answers a reservation the current read cannot find without spending a card, and says nothing of the email', async () => {
    const reservation = freshReservation(world, 300);
    world.sandbox.control.setReadings({ reservationsV3Misses: [reservation.reservationId] });
    try {
      const refused = await site(0).createSession(reservation.reservationId, reservation.guestEmail).expect(404);
      expect(refused.body.code).toBe('reservation_not_found');
      expect(world.sandbox.control.getPaymentMethods(reservation.guestId)).toHaveLength(0);
    } finally {
      world.sandbox.control.setReadings({ reservationsV3Misses: [] });
    }
  });
});

describe('the legacy routes after the sunset', () => {
  it('answer 404 "retired" by default on the current surface, and the switch serves them again', async () => {
    const world = await startSandboxedApps(1, { sandbox: { legacyRoutes: 'retired' }, env: { GUESTY_API_SURFACE: 'current' } });
    try {
      const platform = new SandboxClient(world.sandbox);
      const reservation = freshReservation(world, 100);
      const retired = await platform.api(`/v1/reservations/${reservation.reservationId}`);
      expect(retired.status).toBe(404);
      expect(retired.body).toMatchObject({ code: 'RETIRED' });
      world.sandbox.control.setReadings({ legacyRoutes: 'served' });
      expect((await platform.api(`/v1/reservations/${reservation.reservationId}`)).status).toBe(200);
    } finally {
      await world.close();
    }
  });
});

/**
 * Each resource on its own switch (docs/product-spec.md §2): the legacy guest payment methods have no
 * removal date while the legacy reservation read goes on 2027-03-01, so an operator may keep one and
 * move the other. The surface the platform answered on is the reference path it logged.
 */
describe.each([
  ['reservations current, payment methods legacy', 'current', 'legacy', '/guests/{id}/payment-methods'],
  ['reservations legacy, payment methods current', 'legacy', 'current', '/payment-methods'],
] as const)('%s', (_name, reservations, paymentMethods, methodPath) => {
  let world: SandboxedApps;

  beforeAll(async () => {
    world = await startSandboxedApps(1, {
      sandbox: { paymentVisibilityDelayMs: 0, legacyRoutes: reservations === 'legacy' ? 'served' : 'retired' },
      env: { GUESTY_RESERVATIONS_SURFACE: reservations, GUESTY_PAYMENT_METHODS_SURFACE: paymentMethods },
    });
    world.sandbox.control.setReadings({ legacyPaymentMethodRoutes: paymentMethods === 'legacy' ? 'served' : 'retired' });
  });
  afterAll(() => world.close());

  it('reads the reservation on its surface and lists and attaches the card on the other, once', async () => {
    const reservation = freshReservation(world, 260);
    const from = world.sandbox.control.requestLog.length;
    const site = checkoutClient(world.apps[0].url);
    const created = await site.createSession(reservation.reservationId, reservation.guestEmail).expect(201);
    expect(created.body).toMatchObject({ amount: 260, currency: 'USD' });
    expect((await site.submit(created.body.id, cardBody(CARDS.noThreeDs)).expect(200)).body.status).toBe('succeeded');
    expect(world.sandbox.control.getPaymentMethods(reservation.guestId)).toHaveLength(1);

    const calls = world.sandbox.control.requestLog.slice(from);
    expect(calls.filter((call) => call.status >= 400)).toEqual([]);
    const pathsOf = (route: string) => [...new Set(calls.filter((call) => call.route === route).map((call) => call.reference))];
    expect(pathsOf('reservation')).toEqual([reservations === 'legacy' ? '/reservations/{id}' : '/reservations-v3']);
    expect(pathsOf('paymentMethods')).toEqual([methodPath]);
    expect(pathsOf('listPaymentMethods')).toEqual([methodPath]);
  });
});
