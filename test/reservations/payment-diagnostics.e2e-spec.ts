import { onSurface } from '../utils/surface';
import request from 'supertest';
import { CARDS, cardBody, checkoutClient, freshReservation } from '../utils/checkout-client';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';
import { awaitCharge } from '../utils/charges';

const ADMIN_API_KEY = 'diagnostics-admin-key-0123456789';
// A payment's safe fields: when the platform charges it (dueAt) and when it was paid (paidAt), never its provider.
const SAFE_KEYS = ['amount', 'createdAt', 'currency', 'dueAt', 'id', 'status'];
// A new payment shows in money.payments only this long after the attach (eventual consistency).
const VISIBILITY_DELAY_MS = 800;
// A due charge settles this long after it shows (PENDING → SUCCEEDED / FAILED).
const SETTLE_DELAY_MS = 500;

describe('money.payments diagnostics', () => {
  let world: SandboxedApps;

  beforeAll(async () => {
    // Room in the budget: a read that waited for its slot past the visibility delay would see the payment at once.
    world = await startSandboxedApps(1, {
      env: { ADMIN_API_KEY, UPSTREAM_RATE_LIMITS: '1000/s,10000/m,100000/h' },
      sandbox: {
        paymentVisibilityDelayMs: VISIBILITY_DELAY_MS,
        chargeSettleDelayMs: SETTLE_DELAY_MS,
        rateLimits: { perSecond: 1000, perMinute: 10_000, perHour: 100_000 },
      },
    });
  });

  afterAll(() => world.close());

  const site = () => checkoutClient(world.apps[0].url);
  const admin = (reservationId: string) =>
    request(world.apps[0].url)
      .get(`/admin/reservations/${reservationId}/payment-diagnostics`)
      .set('Authorization', `Bearer ${ADMIN_API_KEY}`);
  const paymentStatus = (sessionId: string) => request(world.apps[0].url).get(`/checkout/sessions/${sessionId}/payment-status`);
  // Payment truth: the legacy reservation read embeds the payments; the current surface lists them.
  const reservationReads = () =>
    world.sandbox.control.counters.requests[onSurface<'reservation' | 'payments'>({ legacy: 'reservation', current: 'payments' })] ?? 0;

  /** A fresh reservation, a session for it, and a card submitted: the attach has just happened. */
  async function pay(card: string, listingId = 'lst-seaside', currency = 'USD') {
    const reservation = freshReservation(world, 300, listingId, currency);
    const created = await site().createSession(reservation.reservationId, reservation.guestEmail).expect(201);
    const sessionId = created.body.id as string;
    await site().submit(sessionId, cardBody(card)).expect(200);
    return { ...reservation, sessionId };
  }

  function expectSafePayments(body: { payments: Record<string, unknown>[] }, keys: string[]): void {
    for (const payment of body.payments) expect(Object.keys(payment).sort()).toEqual(keys);
    const text = JSON.stringify(body);
    expect(text).not.toMatch(/apiKey|sk_sandbox|attempts|guestId|decline_code/);
  }

  describe('each fixture, through the admin route', () => {
    it('res-paid: paid and ok', async () => {
      const res = await admin('res-paid').expect(200);
      expect(res.body).toMatchObject({ state: 'paid', diagnosis: { code: 'ok', message: expect.stringContaining('638 EUR') } });
      expect(res.body.payments).toEqual([
        {
          id: 'pay_paula',
          status: 'SUCCEEDED',
          amount: 638,
          currency: 'EUR',
          createdAt: expect.any(String),
          dueAt: expect.any(String),
          paidAt: expect.any(String),
        },
      ]);
      expect(res.body).toMatchObject({ amountPaid: 638, amountDue: 0 });
      expectSafePayments(res.body, [...SAFE_KEYS, 'paidAt'].sort());
    });

    it('res-mismatch: a card tokenized under another provider than the listing, both named', async () => {
      const res = await admin('res-mismatch').expect(200);
      expect(res.body).toMatchObject({ state: 'missing', diagnosis: { code: 'provider_mismatch' }, payments: [] });
      expect(res.body.diagnosis.message).toMatch(
        /tokenized under payment provider pp-city, but listing lst-seaside is paid through pp-seaside/,
      );
      expect(res.body.diagnosis.message).toMatch(/enter the card again/);
    });

    it("res-failed: a processor error with the issuer's message", async () => {
      const res = await admin('res-failed').expect(200);
      expect(res.body).toMatchObject({ state: 'failed', diagnosis: { code: 'processor_error', category: 'insufficient_funds' } });
      expect(res.body.diagnosis.message).toContain('Your card has insufficient funds.');
      expect(res.body.payments).toEqual([expect.objectContaining({ status: 'FAILED', last4: '0341' })]);
      expectSafePayments(res.body, [...SAFE_KEYS, 'last4'].sort());
    });

    it('res-unpaid: nothing ever attached', async () => {
      const res = await admin('res-unpaid').expect(200);
      expect(res.body).toMatchObject({ state: 'missing', diagnosis: { code: 'not_attached' }, payments: [] });
    });

    it('answers 404 reservation_not_found for an unknown reservation', async () => {
      const res = await admin('res-nobody').expect(404);
      expect(res.body.code).toBe('reservation_not_found');
    });
  });

  describe('a session, through the checkout route', () => {
    it('paid and ok after card 4242, once the platform charged it (all at booking, lst-seaside)', async () => {
      const { sessionId, reservationId } = await pay(CARDS.noThreeDs);
      await awaitCharge(world, reservationId, 'SUCCEEDED', VISIBILITY_DELAY_MS + SETTLE_DELAY_MS);
      const res = await paymentStatus(sessionId).expect(200);
      expect(res.body).toMatchObject({ state: 'paid', amountPaid: 300, amountDue: 0, diagnosis: { code: 'ok' } });
      expect(res.body.payments).toEqual([
        expect.objectContaining({ status: 'SUCCEEDED', amount: 300, currency: 'USD', last4: '4242', paidAt: expect.any(String) }),
      ]);
      expectSafePayments(res.body, [...SAFE_KEYS, 'last4', 'paidAt'].sort());
    });

    it("a processor error after the insufficient-funds card, in words for the guest (the processor's own go to the admin route)", async () => {
      const { sessionId, reservationId } = await pay(CARDS.processorError);
      await awaitCharge(world, reservationId, 'FAILED', VISIBILITY_DELAY_MS + SETTLE_DELAY_MS);
      const res = await paymentStatus(sessionId).expect(200);
      expect(res.body).toMatchObject({
        state: 'failed',
        amountPaid: 0,
        amountDue: 300,
        diagnosis: { code: 'processor_error', category: 'insufficient_funds' },
      });
      // The category in plain words for the guest, never the processor's own sentence.
      expect(res.body.diagnosis.message).not.toContain('Your card has insufficient funds.');
      expect(res.body.diagnosis.message).toMatch(/declined for insufficient funds.*add another card/);
      expect(res.body.diagnosis.message).toContain('0341');
      expectSafePayments(res.body, [...SAFE_KEYS, 'last4'].sort());
    });

    it('waits for a payment that shows only after a moment, re-reading the reservation: scheduled, not yet paid', async () => {
      // The platform charges on its own schedule: held here, so "not yet" does not race the charge.
      world.sandbox.control.holdCharges();
      const { before, res } = await (async () => {
        try {
          // Counted from the card on: a webhook the attach set off may already be re-reading when it answers.
          const reservation = freshReservation(world, 300);
          const created = await site().createSession(reservation.reservationId, reservation.guestEmail).expect(201);
          const readsBefore = reservationReads();
          await site()
            .submit(created.body.id as string, cardBody(CARDS.noThreeDs))
            .expect(200);
          return { before: readsBefore, res: await paymentStatus(created.body.id as string).expect(200) };
        } finally {
          world.sandbox.control.holdCharges(false);
        }
      })();
      // Attaching charges nothing by itself: the payment shows scheduled (due now), and nothing is paid yet.
      expect(res.body).toMatchObject({
        state: 'scheduled',
        amountPaid: 0,
        amountDue: 300,
        nextPayment: { amount: 300 },
        diagnosis: { code: 'ok' },
      });
      expect(res.body.payments).toEqual([expect.objectContaining({ status: 'PENDING', amount: 300, last4: '4242' })]);
      expect(reservationReads() - before).toBeGreaterThan(1);
    });

    it('a provider mismatch when the listing changed provider while the service cached the old one', async () => {
      const reservation = freshReservation(world, 300, 'lst-city', 'EUR');
      // The session reads the listing's provider through the cache (pp-city) ...
      const created = await site().createSession(reservation.reservationId, reservation.guestEmail).expect(201);
      expect(created.body.paymentProviderId).toBe('pp-city');
      world.sandbox.control.setListingProvider('lst-city', 'pp-mountain');
      try {
        // ... so the card is tokenized under pp-city: attached, but never charged.
        const paid = await site().submit(created.body.id, cardBody(CARDS.noThreeDs)).expect(200);
        expect(paid.body.status).toBe('succeeded');
        const res = await paymentStatus(created.body.id).expect(200);
        expect(res.body).toMatchObject({ state: 'missing', diagnosis: { code: 'provider_mismatch' }, payments: [] });
        expect(res.body.diagnosis.message).toMatch(/card ending 4242 cannot be charged for this booking/);
        expect(res.body.diagnosis.message).not.toMatch(/pp-city|pp-mountain/);
      } finally {
        world.sandbox.control.setListingProvider('lst-city', 'pp-city');
      }
    });

    it('answers 404 session_not_found for an unknown session', async () => {
      const res = await paymentStatus('cs_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA').expect(404);
      expect(res.body.code).toBe('session_not_found');
      await paymentStatus('not-a-session').expect(404);
    });
  });

  it('documents both routes with their answer', async () => {
    const docs = await request(world.apps[0].url).get('/docs-json').expect(200);
    const ok = (path: string) => docs.body.paths[path]?.get?.responses?.['200']?.content?.['application/json']?.schema?.$ref;
    expect(ok('/checkout/sessions/{id}/payment-status')).toBe('#/components/schemas/PaymentDiagnosisResponse');
    expect(ok('/admin/reservations/{reservationId}/payment-diagnostics')).toBe('#/components/schemas/PaymentDiagnosisResponse');
    expect(Object.keys(docs.body.paths['/admin/reservations/{reservationId}/payment-diagnostics'].get.responses)).toEqual(
      expect.arrayContaining(['401', '404']),
    );
  });

  it('counts each diagnosis in the metrics', async () => {
    const metrics = await request(world.apps[0].url).get('/metrics').expect(200);
    for (const code of ['ok', 'provider_mismatch', 'processor_error', 'not_attached']) {
      expect(metrics.text).toMatch(new RegExp(`payment_diagnoses_total\\{code="${code}"\\} [1-9]`));
    }
  });
});
