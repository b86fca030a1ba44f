import { startTestSandbox, tokenizeBody, type SandboxClient } from './sandbox-helpers';

describe('sandbox guest payment methods (POST /v1/guests/:guestId/payment-methods)', () => {
  let client: SandboxClient;

  beforeAll(async () => {
    // A frozen clock: payments become visible only when the test moves time.
    client = await startTestSandbox({ clock: () => 1_750_000_000_000, paymentVisibilityDelayMs: 500 });
  });
  afterAll(() => client.sandbox.stop());
  beforeEach(() => {
    client.control.reset();
    client.forgetToken();
  });

  const fresh = (balanceDue = 250) =>
    client.control.createReservation({ listingId: 'lst-seaside', guestEmail: 'pay@example.com', balanceDue, currency: 'USD' });
  const attach = (guestId: string, body: Record<string, unknown>) => client.api(`/v1/guests/${guestId}/payment-methods`, { body });
  const money = async (reservationId: string) => (await client.api(`/v1/reservations/${reservationId}`)).body.money;

  it('creates a payment method that charges nothing by itself: the payment shows PENDING after a moment, then settles', async () => {
    const { reservationId, guestId } = fresh();
    const token = await client.tokenize(tokenizeBody({}));
    const answer = await attach(guestId, { _id: token.body._id, paymentProviderId: 'pp-seaside', reservationId });
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({
      _id: expect.stringMatching(/^pm_/),
      guestId,
      paymentProviderId: 'pp-seaside',
      type: 'CARD',
      reuse: false,
      last4: '4242',
      brand: 'visa',
      payload: { card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2099 } },
      status: 'ACTIVE',
      createdAt: expect.any(String),
    });
    // As the published production answer: the method does not name the reservation again (a reading).
    expect(answer.body).not.toHaveProperty('reservationId');

    expect(await money(reservationId)).toMatchObject({ payments: [], totalPaid: 0, balanceDue: 250, isFullyPaid: false });
    client.control.advanceClock(499);
    expect((await money(reservationId)).payments).toEqual([]);
    client.control.advanceClock(1);
    // Shown, due now (the listing charges all at booking), not charged yet: attached is not paid.
    const scheduled = await money(reservationId);
    expect(scheduled).toMatchObject({ totalPaid: 0, balanceDue: 250, isFullyPaid: false });
    expect(scheduled.payments).toEqual([expect.objectContaining({ amount: 250, status: 'PENDING', attempts: [] })]);
    client.control.advanceClock(500);
    const settled = await money(reservationId);
    expect(settled).toMatchObject({ totalPaid: 250, balanceDue: 0, isFullyPaid: true });
    expect(settled.payments).toEqual([
      expect.objectContaining({
        amount: 250,
        currency: 'USD',
        status: 'SUCCEEDED',
        paymentMethodId: answer.body._id,
        guestId,
        shouldBePaidAt: new Date(1_750_000_000_000).toISOString(),
        isAuthorizationHold: false,
      }),
    ]);

    const listed = await client.api(`/v1/guests/${guestId}/payment-methods?reservationId=${reservationId}&reuse=false`);
    expect(listed.body).toEqual([expect.objectContaining({ _id: answer.body._id, reuse: false })]);
    // The reference's `reuse` filter defaults to true: a method attached with reuse: false is not listed without it.
    expect((await client.api(`/v1/guests/${guestId}/payment-methods?reservationId=${reservationId}`)).body).toEqual([]);
    expect((await client.api(`/v1/guests/${guestId}/payment-methods`)).body).toEqual([]);
  });

  it('refuses a token used before (single-use)', async () => {
    const { reservationId, guestId } = fresh();
    const token = await client.tokenize(tokenizeBody({}));
    const body = { _id: token.body._id, paymentProviderId: 'pp-seaside', reservationId };
    expect((await attach(guestId, body)).status).toBe(201);
    const again = await attach(guestId, body);
    expect(again.status).toBe(400);
    expect(again.body.message).toMatch(/already used/);
  });

  it('refuses an unknown token, a provider other than the token’s, a foreign reservation and an unknown guest', async () => {
    const { reservationId, guestId } = fresh();
    const unknown = await attach(guestId, { _id: 'tok_nope', paymentProviderId: 'pp-seaside', reservationId });
    expect(unknown.status).toBe(400);
    const token = await client.tokenize(tokenizeBody({}));
    const otherProvider = await attach(guestId, { _id: token.body._id, paymentProviderId: 'pp-city', reservationId });
    expect(otherProvider.status).toBe(400);
    const foreign = await attach(guestId, { _id: token.body._id, paymentProviderId: 'pp-seaside', reservationId: 'res-unpaid' });
    expect(foreign.status).toBe(400);
    const noGuest = await attach('guest-nobody', { _id: token.body._id, paymentProviderId: 'pp-seaside', reservationId });
    expect(noGuest.status).toBe(404);
    const noReservation = await attach(guestId, { _id: token.body._id, paymentProviderId: 'pp-seaside', reservationId: 'res-nowhere' });
    expect(noReservation.status).toBe(404);
    const malformed = await attach(guestId, { paymentProviderId: 'pp-seaside' });
    expect(malformed.status).toBe(400);
    expect(client.control.getToken(token.body._id)?.used).toBe(false);
  });

  it('refuses a 3DS token until it is authenticated, and a failed 3DS for good', async () => {
    const { reservationId, guestId } = fresh();
    const pending = await client.tokenize(tokenizeBody({ number: '4000000000003220' }));
    const body = { _id: pending.body._id, paymentProviderId: 'pp-seaside', reservationId };
    const early = await attach(guestId, body);
    expect(early.status).toBe(400);
    expect(early.body.code).toBe('THREE_DS_REQUIRED');
    await client.issuerAction(pending.body._id, 'authenticate');
    expect((await attach(guestId, body)).status).toBe(201);
    client.control.advanceClock(1_000);
    expect((await money(reservationId)).payments[0].status).toBe('SUCCEEDED');

    const failing = await client.tokenize(tokenizeBody({ number: '4000000000003220' }));
    await client.issuerAction(failing.body._id, 'fail');
    const refused = await attach(guestId, { _id: failing.body._id, paymentProviderId: 'pp-seaside', reservationId });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('THREE_DS_FAILED');
  });

  it('accepts a token made under a stale provider but no payment ever appears (provider mismatch)', async () => {
    const { reservationId, guestId } = fresh();
    const token = await client.tokenize(tokenizeBody({ paymentProviderId: 'pp-seaside' }));
    client.control.setListingProvider('lst-seaside', 'pp-mountain');
    const answer = await attach(guestId, { _id: token.body._id, paymentProviderId: 'pp-seaside', reservationId });
    expect(answer.status).toBe(201);
    client.control.advanceClock(3_600_000);
    const after = await money(reservationId);
    expect(after).toMatchObject({ payments: [], balanceDue: 250, paymentProviderIds: ['pp-mountain'] });
    expect(client.control.getReservation(reservationId, { settled: true })).toMatchObject({ money: { payments: [] } });
  });

  it('records a FAILED payment with the processor error for the insufficient-funds card', async () => {
    const { reservationId } = fresh();
    const { attach: answer } = await client.payWithCard(reservationId, '4000000000000341');
    expect(answer.status).toBe(201);
    client.control.advanceClock(1_000);
    const after = await money(reservationId);
    expect(after).toMatchObject({ totalPaid: 0, balanceDue: 250, isFullyPaid: false });
    expect(after.payments).toEqual([
      expect.objectContaining({
        status: 'FAILED',
        amount: 250,
        attempts: [
          expect.objectContaining({
            status: 'FAILED',
            payload: {
              code: 'card_declined',
              decline_code: 'insufficient_funds',
              message: 'Your card has insufficient funds.',
              payment_method: { card: { brand: 'visa', last4: '0341' } },
            },
          }),
        ],
      }),
    ]);
    const retry = await client.payWithCard(reservationId, '4242424242424242');
    expect(retry.attach.status).toBe(201);
    client.control.advanceClock(1_000);
    expect(await money(reservationId)).toMatchObject({ totalPaid: 250, balanceDue: 0, isFullyPaid: true });
  });

  it('does not charge twice when a second card is attached before the first payment is charged: the payment moves to it', async () => {
    const { reservationId } = fresh();
    await client.payWithCard(reservationId, '4242424242424242');
    const second = await client.payWithCard(reservationId, '5555555555554444');
    client.control.advanceClock(1_000);
    expect(client.control.getReservation(reservationId, { settled: true })).toMatchObject({
      money: { totalPaid: 250, payments: [expect.objectContaining({ amount: 250, paymentMethodId: second.attach.body._id })] },
    });
  });
});
