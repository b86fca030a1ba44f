import {
  attachedMethodOf,
  holdEndOf,
  holdOf,
  methodOnFileOf,
  methodsPaying,
  moneyOf,
  paymentOf,
  reservationFromRead,
  reservationOf,
  statusChangeOf,
} from './platform-readings';
import { UpstreamPayment } from './guesty.types';

describe("the platform's answers, read in the product's words", () => {
  it('reads a Reservations V3 create answer as its hold, and a status answer as the status it now has', () => {
    const created = {
      reservationId: 'res-1',
      confirmationCode: 'SBX-1',
      status: 'reserved',
      guestId: 'g-1',
      reservedExpiresAt: '2026-11-25T12:30:00Z',
      // A date-time whose local day depends on the listing's time zone: the quote's dates are kept instead.
      checkInDate: '2026-12-01T23:00:00.000Z',
    };
    expect(holdOf(created)).toEqual({
      reservationId: 'res-1',
      confirmationCode: 'SBX-1',
      status: 'reserved',
      guestId: 'g-1',
      holdEndsAt: '2026-11-25T12:30:00Z',
    });
    const changed = { reservationId: 'res-1', status: 'confirmed', money: { currency: 'USD' } };
    expect(statusChangeOf(changed)).toEqual({
      reservationId: 'res-1',
      status: 'confirmed',
    });
  });

  it("reads a reservation's hold, guest email, folio and payments, leaving out what the answer left out", () => {
    const item = { title: 'Accommodation fare', amount: 140, normalType: 'AF' };
    const payment = { amount: 100, currency: 'USD', status: 'SUCCEEDED' };
    const reservation = reservationOf({
      _id: 'res-1',
      status: 'reserved',
      listingId: 'lst-1',
      guestId: 'g-1',
      guest: { email: 'fay@example.com' },
      reservedExpiresAt: '2026-11-25T12:30:00Z',
      money: {
        currency: 'USD',
        totalPaid: 100,
        isFullyPaid: false,
        invoiceItems: [{ _id: 'ii_af', ...item }],
        payments: [{ _id: 'pay_1', ...payment, paymentMethodId: 'pm_1' }],
      },
    });
    expect(reservation).toEqual({
      id: 'res-1',
      status: 'reserved',
      listingId: 'lst-1',
      guestId: 'g-1',
      guestEmail: 'fay@example.com',
      holdEndsAt: '2026-11-25T12:30:00Z',
      money: {
        currency: 'USD',
        paid: 100,
        fullyPaid: false,
        folio: [{ id: 'ii_af', ...item }],
        payments: [{ id: 'pay_1', ...payment, methodId: 'pm_1' }],
      },
    });
  });

  it("reads a payment's statuses in the published case, and each attempt's card, codes and words", () => {
    expect(
      paymentOf({
        _id: 'pay_2',
        amount: 50,
        currency: 'EUR',
        status: 'pending_auth',
        shouldBePaidAt: '2026-12-01T00:00:00Z',
        authenticationRequiredData: { authenticationUrl: 'https://issuer.example/a' },
        attempts: [
          {
            status: 'failed',
            createdAt: '2026-11-25T12:00:00Z',
            payload: { code: 'card_declined', decline_code: 'insufficient_funds', payment_method: { card: { last4: '0341' } } },
          },
          { status: 'failed', error: 'refused by the issuer' },
        ],
      }),
    ).toEqual({
      id: 'pay_2',
      amount: 50,
      currency: 'EUR',
      status: 'PENDING_AUTH',
      dueAt: '2026-12-01T00:00:00Z',
      authenticationUrl: 'https://issuer.example/a',
      attempts: [
        { status: 'FAILED', at: '2026-11-25T12:00:00Z', last4: '0341', code: 'card_declined', declineCode: 'insufficient_funds' },
        { status: 'FAILED', message: 'refused by the issuer' },
      ],
    });
  });

  it("reads a payment method's card at the top level or under `payload.card` (the published item has both), the top level first", () => {
    expect(methodOnFileOf({ _id: 'pm_1', last4: '4242', brand: 'visa', payload: { card: { last4: '1111', brand: 'amex' } } })).toEqual({
      id: 'pm_1',
      last4: '4242',
      brand: 'visa',
    });
    expect(methodOnFileOf({ _id: 'pm_2', reservationId: null, payload: { card: { last4: '1111' } } })).toEqual({
      id: 'pm_2',
      reservationId: null,
      last4: '1111',
    });
    // Of an attach answer, only the method's id and its card.
    expect(attachedMethodOf({ _id: 'pm_3', payload: { card: { last4: '0341', brand: 'visa' } } })).toEqual({
      id: 'pm_3',
      last4: '0341',
      brand: 'visa',
    });
  });

  it('reads a Reservations V3 item: the booker as the guest, the first stay as the listing and dates, the hold from reservedAt + reservedUntil', () => {
    const read = reservationFromRead(
      {
        _id: 'r1',
        status: 'reserved',
        confirmationCode: 'GY-1',
        bookerId: 'g1',
        stay: [{ checkInDateLocalized: '2027-03-10', checkOutDateLocalized: '2027-03-12', unitTypeId: 'l1' }],
        reservedAt: '2027-03-01T10:00:00.000Z',
        reservedUntil: 0.5,
      },
      { guestEmail: 'a@b.c' },
    );
    expect(read).toEqual({
      id: 'r1',
      status: 'reserved',
      confirmationCode: 'GY-1',
      guestId: 'g1',
      listingId: 'l1',
      guestEmail: 'a@b.c',
      checkIn: '2027-03-10',
      checkOut: '2027-03-12',
      holdEndsAt: '2027-03-01T10:30:00.000Z',
    });
    expect(holdEndOf({ _id: 'r', reservedAt: '2027-03-01T10:00:00.000Z', reservedUntil: -1 })).toBeUndefined();
  });

  it("reads what a reservation owes as the folio's total less the payments that succeeded, the platform's own balance first", () => {
    const payments = [
      { _id: 'p1', amount: 100, status: 'SUCCEEDED' },
      { _id: 'p2', amount: 50, status: 'failed' },
      { _id: 'p3', amount: 30, status: 'PENDING' },
    ] as UpstreamPayment[];
    expect(moneyOf({ reservationId: 'r', currency: 'EUR', subTotalPrice: 400, totalTaxes: 40 }, payments)).toMatchObject({
      currency: 'EUR',
      paid: 100,
      balanceDue: 340,
      fullyPaid: false,
    });
    expect(moneyOf({ reservationId: 'r', currency: 'EUR', subTotalPrice: 400, totalTaxes: 40, balanceDue: 12 }, payments).balanceDue).toBe(
      12,
    );
    expect(moneyOf(undefined, payments).balanceDue).toBeUndefined();
    expect(moneyOf({ reservationId: 'r', currency: 'EUR', subTotalPrice: 40 }, payments).balanceDue).toBe(0);
  });

  it('reads the methods charging the reservation from its payments, once each', () => {
    const payments = [
      { id: 'p1', amount: 1, currency: 'USD', status: 'PENDING', methodId: 'pm_1' },
      { id: 'p2', amount: 1, currency: 'USD', status: 'PENDING', methodId: 'pm_1' },
      { id: 'p3', amount: 1, currency: 'USD', status: 'PENDING' },
    ];
    expect(methodsPaying({ payments })).toEqual(['pm_1']);
    expect(methodsPaying(undefined)).toEqual([]);
  });
});
