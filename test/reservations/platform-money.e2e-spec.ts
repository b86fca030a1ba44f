import request from 'supertest';
import { SandboxClient } from '../sandbox/sandbox-helpers';
import { sandboxPayments } from '../utils/charges';
import { CARDS, cardBody, checkoutClient, freshReservation, sessionsStoredFor } from '../utils/checkout-client';
import { waitUntil } from '../utils/redis-server';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';
import { onSurface } from '../utils/surface';

const SETTLE_DELAY_MS = 300;

/**
 * Money as the platform counts it (docs/product-spec.md §3.2): paid is the succeeded payments less
 * their succeeded refunds, an authorization hold is never paid (its capture is), and a refund still
 * processing is not yet money back. A session asks for what is left; payment-status says the same.
 */
describe('what a reservation owes, as the platform counts refunds and holds', () => {
  let world: SandboxedApps;

  beforeAll(async () => {
    world = await startSandboxedApps(1, { sandbox: { paymentVisibilityDelayMs: 0, chargeSettleDelayMs: SETTLE_DELAY_MS } });
  });
  afterAll(() => world.close());

  const site = () => checkoutClient(world.apps[0].url);

  it('asks for the whole total on a reservation whose only payment was refunded in full', async () => {
    const reservation = freshReservation(world, 300);
    const { paymentId } = world.sandbox.control.addPayment(reservation.reservationId, { amount: 300 });
    world.sandbox.control.refundPayment(reservation.reservationId, paymentId);

    const created = await site().createSession(reservation.reservationId, reservation.guestEmail);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ amount: 300, currency: 'USD' });
  });

  it('tells the guest of a security deposit hold waiting for their bank, though a hold is never a payment', async () => {
    const reservation = freshReservation(world, 240);
    const { reservationId } = reservation;
    const created = await site().createSession(reservationId, reservation.guestEmail).expect(201);
    await site().submit(created.body.id, cardBody(CARDS.noThreeDs)).expect(200);
    // The booking's charge still on its way (the clock not moved), the deposit's hold waits for the bank.
    world.sandbox.control.addPayment(reservationId, { amount: 150, hold: 'securityDeposit', status: 'PENDING_AUTH' });

    const waiting = await request(world.apps[0].url).get(`/checkout/sessions/${created.body.id}/payment-status`).expect(200);
    expect(waiting.body).toMatchObject({ state: 'requires_authentication', diagnosis: { code: 'authentication_required' } });
    expect((waiting.body.payments as { amount: number }[]).map((payment) => payment.amount)).toEqual([240]);
  });

  describe.each(['absent', 'present'] as const)('with the payments list summary fields %s', (paymentSummary) => {
    beforeAll(() => world.sandbox.control.setReadings({ paymentSummary }));
    afterAll(() => world.sandbox.control.setReadings({ paymentSummary: 'absent' }));

    it('asks for what a captured hold left, and tells a later partial refund as a balance the host collects', async () => {
      const reservation = freshReservation(world, 500);
      const { reservationId } = reservation;
      const { control } = world.sandbox;
      const hold = control.addPayment(reservationId, { amount: 500, hold: 'authorization' });
      const capture = control.capturePayment(reservationId, hold.paymentId, { amount: 300 });
      // Still processing: not money back yet.
      control.refundPayment(reservationId, capture.paymentId, { amount: 50, status: 'PROCESSING' });

      const created = await site().createSession(reservationId, reservation.guestEmail).expect(201);
      expect(created.body).toMatchObject({ amount: 200, currency: 'USD' });
      await site().submit(created.body.id, cardBody(CARDS.noThreeDs)).expect(200);
      control.advanceClock(SETTLE_DELAY_MS);
      const charged = () => sandboxPayments(world, reservationId).find((p) => p.amount === 200 && p.status === 'SUCCEEDED');
      await waitUntil(() => Promise.resolve(charged() !== undefined), 5_000, 'the card charged for what was left');
      control.refundPayment(reservationId, charged()!._id, { amount: 100 });

      const status = await request(world.apps[0].url).get(`/checkout/sessions/${created.body.id}/payment-status`).expect(200);
      expect(status.body).toMatchObject({ state: 'balance_due', currency: 'USD', amountPaid: 400, amountDue: 100 });
      // The hold is money held, not a payment: the guest sees the capture and the card's payment.
      expect((status.body.payments as { amount: number }[]).map((payment) => payment.amount).sort()).toEqual([200, 300]);
    });
  });

  describe.each(['published', 'seen'] as const)('with an overview that accepts the %s field names', (overviewFields) => {
    beforeAll(() => world.sandbox.control.setReadings({ overviewFields }));
    afterAll(() => world.sandbox.control.setReadings({ overviewFields: 'published' }));

    it("opens a session for the reservation's whole total, asking the overview only published names", async () => {
      const reservation = freshReservation(world, 420);
      const from = world.sandbox.control.requestLog.length;
      const created = await site().createSession(reservation.reservationId, reservation.guestEmail).expect(201);
      expect(created.body).toMatchObject({ amount: 420, currency: 'USD' });
      const overviews = world.sandbox.control.requestLog.slice(from).filter((call) => call.route === 'folioOverview');
      expect(overviews.map((call) => call.status)).toEqual(onSurface({ current: [200], legacy: [] }));
    });

    it('refuses a name it does not accept with a 400 naming it', async () => {
      const platform = new SandboxClient(world.sandbox);
      const asked = await platform.api('/v1/guest-folio/overview?reservationIds=res-unpaid&fields=hostPayout,subTotalPrice');
      if (overviewFields === 'published') {
        expect(asked.status).toBe(400);
        expect(JSON.stringify(asked.body)).toContain('subTotalPrice');
      } else {
        expect(asked.status).toBe(200);
        expect(asked.body.results[0]).toEqual({ reservationId: 'res-unpaid', hostPayout: 594, subTotalPrice: 540 });
      }
    });
  });
});

describe('a payments list answered otherwise, on the current surface', () => {
  let world: SandboxedApps;

  beforeAll(async () => {
    world = await startSandboxedApps(1, { sandbox: { paymentVisibilityDelayMs: 0 }, env: { GUESTY_API_SURFACE: 'current' } });
  });
  afterAll(() => world.close());

  it('answers 503 platform_answer_unexpected for a succeeded refund without an amount, and opens no session', async () => {
    const reservation = freshReservation(world, 300);
    const refunded = { _id: 'pay_x', amount: 300, status: 'SUCCEEDED', refunds: [{ _id: 'refund_x', status: 'SUCCEEDED' }] };
    world.sandbox.control.forceStatus('payments', 200, { body: [refunded] });
    try {
      const answer = await checkoutClient(world.apps[0].url).createSession(reservation.reservationId, reservation.guestEmail);
      expect(answer.status).toBe(503);
      expect(answer.body.code).toBe('platform_answer_unexpected');
      expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
      expect(await sessionsStoredFor(world, reservation.reservationId)).toBe(0);
    } finally {
      world.sandbox.control.clearFaults();
    }
  });

  it("takes the payments list's summary over its own count, and logs the two figures for the operator", async () => {
    const reservation = freshReservation(world, 300);
    const paid = { _id: 'pay_y', amount: 100, status: 'SUCCEEDED' };
    world.sandbox.control.forceStatus('payments', 200, { body: { results: [paid], totalPaid: 120, balanceDue: 180 } });
    try {
      const created = await checkoutClient(world.apps[0].url).createSession(reservation.reservationId, reservation.guestEmail).expect(201);
      expect(created.body).toMatchObject({ amount: 180, currency: 'USD' });
      const logged = world.apps[0].logs.entries().filter((entry) => entry.reservationId === reservation.reservationId && entry.figure);
      expect(logged.map(({ figure, platform, counted }) => ({ figure, platform, counted }))).toEqual([
        { figure: 'paid', platform: 120, counted: 100 },
        { figure: 'balanceDue', platform: 180, counted: 200 },
      ]);
      expect(JSON.stringify(logged)).not.toMatch(/Bearer|access_token|sandbox-client-secret/);
    } finally {
      world.sandbox.control.clearFaults();
    }
  });
});
