import { startTestSandbox, type SandboxClient } from './sandbox-helpers';
import { SANDBOX_COUPON } from '../../sandbox/state/booking-state';

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

  it("makes a reservation from a quote and answers its status change with the quote's money, as Reservations V3 declares both", async () => {
    client.control.setChannelCommission(15);
    try {
      const quote = await client.api('/v1/quotes', {
        body: {
          listingId: 'lst-city',
          checkInDateLocalized: '2030-06-10',
          checkOutDateLocalized: '2030-06-13',
          guestsCount: 3,
          source: 'website',
          couponCode: SANDBOX_COUPON.code,
        },
      });
      const plan = quote.body.rates.ratePlans[0].ratePlan;
      const guest = await client.api('/v1/guests-crud', { body: { firstName: 'Vera', lastName: 'Lind', email: 'vera@example.com' } });
      const made = await client.api('/v1/reservations-v3/quote', {
        body: { quoteId: quote.body._id, ratePlanId: plan._id, status: 'reserved', reservedUntil: 'day', guestId: guest.body._id },
      });
      expect(made.body).toMatchObject({
        quoteId: quote.body._id,
        status: 'reserved',
        guestId: guest.body._id,
        guestsCount: 3,
        numberOfGuests: { numberOfAdults: 3 },
        source: 'website',
        unitTypeId: 'lst-city',
        unitId: 'lst-city',
        checkInDate: expect.stringMatching(/^2030-06-10T/),
        checkOutDate: expect.stringMatching(/^2030-06-13T/),
        reservedExpiresAt: expect.any(String),
      });

      const confirmed = await client.api(`/v1/reservations-v3/${made.body.reservationId}/status`, {
        method: 'PUT',
        body: { status: 'confirmed' },
      });
      expect(Object.keys(confirmed.body).sort()).toEqual(['money', 'reservationId', 'status']);
      expect(confirmed.body).toMatchObject({ reservationId: made.body.reservationId, status: 'confirmed' });
      const { money } = confirmed.body;
      expect(money).toMatchObject({
        currency: 'EUR',
        fareAccommodation: plan.money.fareAccommodation,
        fareAccommodationDiscount: plan.money.fareAccommodationDiscount,
        fareAccommodationAdjusted: plan.money.fareAccommodationAdjusted,
        fareCleaning: plan.money.fareCleaning,
        totalTaxes: plan.money.totalTaxes,
        subTotalPrice: plan.money.subTotalPrice,
        hostPayout: plan.money.hostPayout,
        totalPaid: 0,
        isFullyPaid: false,
        payments: [],
      });
      expect(money.balanceDue).toBeCloseTo(plan.money.subTotalPrice + plan.money.totalTaxes, 2);
      expect(plan.money.fareAccommodationDiscount).toBeGreaterThan(0);
      expect(money.hostPayout).toBeLessThan(money.subTotalPrice + money.totalTaxes);
      expect(money.invoiceItems.map((item: { normalType: string; type: string }) => [item.normalType, item.type])).toEqual([
        ['AF', 'ACCOMMODATION_FARE'],
        ['CF', 'CLEANING_FEE'],
        ['VAT', 'TAX'],
      ]);
    } finally {
      client.control.setChannelCommission(0);
    }
  });
});
