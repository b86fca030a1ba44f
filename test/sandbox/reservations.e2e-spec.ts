import { startTestSandbox, type SandboxClient } from './sandbox-helpers';

describe('sandbox reservations (GET /v1/reservations/:id)', () => {
  let client: SandboxClient;

  beforeAll(async () => {
    client = await startTestSandbox();
  });
  afterAll(() => client.sandbox.stop());

  it("lists a guest's reservations on the control surface, whatever their status, and none for an unknown guest", () => {
    const created = client.control.createReservation({
      listingId: 'lst-city',
      guestEmail: 'ivy-reservations@example.com',
      balanceDue: 100,
      currency: 'EUR',
    });
    expect(client.control.getGuestReservations(created.guestId)).toEqual([
      { _id: created.reservationId, status: 'confirmed', listingId: 'lst-city' },
    ]);
    expect(client.control.getGuestReservations('guest-una')).toEqual(
      expect.arrayContaining([{ _id: 'res-unpaid', status: 'confirmed', listingId: 'lst-seaside' }]),
    );
    expect(client.control.getGuestReservations('guest-nobody')).toEqual([]);
  });

  it('returns the reservation with guest, stay and money', async () => {
    const answer = await client.api('/v1/reservations/res-unpaid');
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      _id: 'res-unpaid',
      confirmationCode: expect.any(String),
      status: 'confirmed',
      listingId: 'lst-seaside',
      guestId: 'guest-una',
      guest: { _id: 'guest-una', fullName: 'Una Wells', email: 'una@example.com' },
      checkIn: expect.any(String),
      checkOut: expect.any(String),
      money: {
        currency: 'USD',
        totalPaid: 0,
        balanceDue: 594,
        isFullyPaid: false,
        paymentProviderIds: ['pp-seaside'],
        payments: [],
      },
    });
    expect(answer.body.money.invoiceItems).toHaveLength(3);
    expect(answer.body.money.invoiceItems[0]).toEqual({
      _id: expect.any(String),
      title: 'Accommodation fare',
      amount: 480,
      normalType: 'AF',
      isTax: false,
    });
  });

  it('projects space-separated fields, always keeping _id', async () => {
    const answer = await client.api('/v1/reservations/res-unpaid?fields=money%20guestId%20listingId');
    expect(Object.keys(answer.body).sort()).toEqual(['_id', 'guestId', 'listingId', 'money']);
    const nested = await client.api('/v1/reservations/res-unpaid?fields=money.balanceDue+guest.email');
    expect(nested.body).toEqual({ _id: 'res-unpaid', money: { balanceDue: 594 }, guest: { email: 'una@example.com' } });
  });

  it('shows the seeded paid, failed and mismatched reservations', async () => {
    const paid = (await client.api('/v1/reservations/res-paid')).body;
    expect(paid.money).toMatchObject({ totalPaid: 638, balanceDue: 0, isFullyPaid: true });
    expect(paid.money.payments).toEqual([
      expect.objectContaining({
        status: 'SUCCEEDED',
        amount: 638,
        currency: 'EUR',
        // The reference's payment has no paymentProviderId: which card paid is its paymentMethodId.
        paymentMethodId: 'pm_paula',
        isAuthorizationHold: false,
        attempts: [{ status: 'SUCCEEDED', createdAt: expect.any(String) }],
        refunds: [],
      }),
    ]);

    const failed = (await client.api('/v1/reservations/res-failed')).body;
    expect(failed.money).toMatchObject({ totalPaid: 0, balanceDue: 564, isFullyPaid: false });
    expect(failed.money.payments[0]).toMatchObject({
      status: 'FAILED',
      attempts: [
        {
          status: 'FAILED',
          payload: {
            code: 'card_declined',
            decline_code: 'insufficient_funds',
            message: 'Your card has insufficient funds.',
            payment_method: { card: { brand: 'visa', last4: '0341' } },
          },
        },
      ],
    });

    const mismatch = (await client.api('/v1/reservations/res-mismatch')).body;
    expect(mismatch.money.payments).toEqual([]);
    const methods = await client.api(`/v1/guests/${mismatch.guestId}/payment-methods?reservationId=res-mismatch&reuse=false`);
    expect(methods.body).toEqual([expect.objectContaining({ paymentProviderId: 'pp-city', status: 'ACTIVE' })]);
    expect(mismatch.money.paymentProviderIds).toEqual(['pp-seaside']);
  });

  it('answers 404 for an unknown reservation, as the reference writes it', async () => {
    const answer = await client.api('/v1/reservations/res-nowhere');
    expect(answer.status).toBe(404);
    expect(answer.body).toBe('Reservation Not Found');
  });

  it('creates fresh reservations for tests, merging guests by email', async () => {
    const first = client.control.createReservation({
      listingId: 'lst-mountain',
      guestEmail: 'new.guest@example.com',
      guestName: 'New Guest',
      balanceDue: 123.45,
      currency: 'GBP',
    });
    const second = client.control.createReservation({
      listingId: 'lst-city',
      guestEmail: 'NEW.GUEST@example.com',
      balanceDue: 10,
      currency: 'EUR',
    });
    expect(second.guestId).toBe(first.guestId);
    const answer = await client.api(`/v1/reservations/${first.reservationId}`);
    expect(answer.body).toMatchObject({
      listingId: 'lst-mountain',
      guest: { email: 'new.guest@example.com', fullName: 'New Guest' },
      money: { balanceDue: 123.45, currency: 'GBP', payments: [] },
    });
  });
});
