import {
  attachedMethodOf,
  holdEndOf,
  holdOf,
  methodOnFileOf,
  methodsPaying,
  moneyOf,
  paymentOf,
  paymentSummaryOf,
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

  describe('money as the platform counts it', () => {
    const line = { reservationId: 'r', currency: 'EUR', hostPayout: 440, totalTaxes: 40 };
    const payment = (id: string, amount: number, more: Partial<UpstreamPayment> = {}) =>
      ({ _id: id, amount, status: 'SUCCEEDED', ...more }) as UpstreamPayment;
    const owed = (...payments: UpstreamPayment[]) => moneyOf(line, { payments });

    it("takes the guest's total from hostPayout and counts only the payments that succeeded", () => {
      const reading = owed(payment('p1', 100), payment('p2', 50, { status: 'failed' }), payment('p3', 30, { status: 'PENDING' }));
      expect(reading.money).toMatchObject({ currency: 'EUR', paid: 100, balanceDue: 340, fullyPaid: false });
      expect(reading.unreadable).toEqual([]);
      expect(moneyOf(undefined, { payments: [payment('p1', 100)] }).money.balanceDue).toBeUndefined();
      expect(moneyOf({ ...line, hostPayout: 40 }, { payments: [payment('p1', 100)] }).money).toMatchObject({
        balanceDue: 0,
        fullyPaid: true,
      });
    });

    it('takes a payment refunded in full for nothing paid, and one refunded in part for what is left of it', () => {
      expect(owed(payment('p1', 440, { refunds: [{ _id: 'rf1', amount: 440, status: 'SUCCEEDED' }] })).money).toMatchObject({
        paid: 0,
        balanceDue: 440,
      });
      const partial = payment('p1', 440, {
        refunds: [
          { _id: 'rf1', amount: 40, status: 'SUCCEEDED' },
          { _id: 'rf2', amount: 60, status: 'SUCCEEDED' },
        ],
      });
      expect(owed(partial).money).toMatchObject({ paid: 340, balanceDue: 100 });
    });

    it('counts a refund still processing (or pending, or failed) as no money back yet', () => {
      const refunds = [
        { _id: 'rf1', amount: 100, status: 'PROCESSING' },
        { _id: 'rf2', amount: 50, status: 'PENDING' },
        { _id: 'rf3', amount: 20, status: 'FAILED' },
      ];
      expect(owed(payment('p1', 440, { refunds })).money).toMatchObject({ paid: 440, balanceDue: 0 });
    });

    it('never counts a hold alone, and counts a hold and its capture once, keeping the holds apart', () => {
      const hold = payment('h1', 440, { isAuthorizationHold: true });
      expect(owed(hold).money).toMatchObject({ paid: 0, balanceDue: 440, payments: [], holds: [{ id: 'h1', hold: true }] });
      const deposit = payment('d1', 200, { isSecurityDeposit: true });
      const reading = owed(hold, deposit, payment('c1', 300));
      expect(reading.money).toMatchObject({ paid: 300, balanceDue: 140, payments: [{ id: 'c1', amount: 300 }] });
      expect(reading.money.holds?.map((held) => held.id)).toEqual(['h1', 'd1']);
    });

    it("reads statuses in any case, the refunds' too", () => {
      const reading = owed(payment('p1', 440, { status: 'succeeded', refunds: [{ _id: 'rf1', amount: 40, status: 'succeeded' }] }));
      expect(reading.money).toMatchObject({ paid: 400, balanceDue: 40 });
      expect(reading.unreadable).toEqual([]);
    });

    it("lets the list's summary fields win over the count, and names every disagreement with both figures", () => {
      const agreeing = moneyOf(line, { payments: [payment('p1', 100)], summary: { paid: 100, balanceDue: 340 } });
      expect(agreeing.money).toMatchObject({ paid: 100, balanceDue: 340 });
      expect(agreeing.disagreements).toEqual([]);
      const disagreeing = moneyOf(line, { payments: [payment('p1', 100)], summary: { paid: 150, balanceDue: 290 } });
      expect(disagreeing.money).toMatchObject({ paid: 150, balanceDue: 290, fullyPaid: false });
      expect(disagreeing.disagreements).toEqual([
        { figure: 'paid', platform: 150, counted: 100 },
        { figure: 'balanceDue', platform: 290, counted: 340 },
      ]);
      // Paid alone stated: what is owed follows from it.
      expect(moneyOf(line, { payments: [], summary: { paid: 40 } }).money.balanceDue).toBe(400);
      expect(paymentSummaryOf({ results: [], totalPaid: 12.5, balanceDue: 'soon' })).toEqual({ paid: 12.5 });
      expect(paymentSummaryOf([{ _id: 'p1' }])).toEqual({});
    });

    it('names what it needed and could not read instead of guessing, unless the summary states the figure', () => {
      const noAmount = payment('p1', 440, { refunds: [{ _id: 'rf1', status: 'SUCCEEDED' }] });
      const unknownRefund = payment('p2', 10, { refunds: [{ _id: 'rf2', amount: 10, status: 'REVERSED' }] });
      const unknownPayment = payment('p3', 10, { status: 'AUTHORIZED' });
      const reading = owed(noAmount, unknownRefund, unknownPayment, payment('p4', NaN));
      expect(reading.money.paid).toBeUndefined();
      expect(reading.money.balanceDue).toBeUndefined();
      expect(reading.unreadable).toEqual([
        { answer: 'payments', what: 'payment p1: a succeeded refund without an amount' },
        { answer: 'payments', what: 'payment p2: a refund with status REVERSED' },
        { answer: 'payments', what: 'payment p3: status AUTHORIZED' },
        { answer: 'payments', what: 'payment p4: succeeded without an amount' },
      ]);
      expect(moneyOf(line, { payments: [noAmount], summary: { paid: 0 } })).toMatchObject({
        money: { paid: 0, balanceDue: 440 },
        unreadable: [],
      });
      expect(moneyOf({ reservationId: 'r', totalTaxes: 40 }, { payments: [] }).unreadable).toEqual([
        { answer: 'overview', what: 'the folio overview without hostPayout' },
        { answer: 'overview', what: 'the folio overview without currency' },
      ]);
    });
  });

  it('reads the methods charging the reservation from its payments, once each', () => {
    const payments = [
      { id: 'p1', amount: 1, currency: 'USD', status: 'PENDING', methodId: 'pm_1' },
      { id: 'p2', amount: 1, currency: 'USD', status: 'PENDING', methodId: 'pm_1' },
      { id: 'p3', amount: 1, currency: 'USD', status: 'PENDING' },
    ];
    expect(methodsPaying({ payments })).toEqual(['pm_1']);
    expect(methodsPaying(undefined)).toEqual([]);
    // A hold's card is on file too, though the hold is no payment.
    expect(methodsPaying({ payments, holds: [{ ...payments[2], id: 'h1', hold: true, methodId: 'pm_2' }] })).toEqual(['pm_1', 'pm_2']);
  });

  it("keeps the legacy read's holds apart from its payments, the platform's own totals as they are", () => {
    const reservation = reservationOf({
      _id: 'res-1',
      listingId: 'lst-1',
      guestId: 'g-1',
      money: {
        currency: 'USD',
        totalPaid: 300,
        balanceDue: 200,
        payments: [
          { _id: 'h1', amount: 500, currency: 'USD', status: 'SUCCEEDED', isAuthorizationHold: true },
          { _id: 'c1', amount: 300, currency: 'USD', status: 'SUCCEEDED' },
        ],
      },
    });
    expect(reservation.money).toMatchObject({ paid: 300, balanceDue: 200, payments: [{ id: 'c1' }], holds: [{ id: 'h1', hold: true }] });
  });
});
