import { methodOnFileOf, paymentOf } from '../upstream/platform-readings';
import {
  attachedVerdict,
  amountsOf,
  balanceDueVerdict,
  currentMethod,
  notAttachedVerdict,
  paidVerdict,
  paymentsOf,
  processorErrorVerdict,
  providerMismatchVerdict,
  safePayments,
  scheduleVerdict,
} from './payment-verdicts';

/** A payment as the platform's answer carries it. */
type PaymentAnswer = Parameters<typeof paymentOf>[0];

/** A payment as the product reads it from the platform's answer (`overrides` in the platform's words). */
function payment(overrides: Partial<PaymentAnswer> = {}) {
  return paymentOf({
    _id: 'pay_1',
    amount: 564,
    currency: 'GBP',
    status: 'SUCCEEDED',
    paymentMethodId: 'pm_1',
    createdAt: '2026-01-02T10:00:00.000Z',
    ...overrides,
  });
}

const insufficientFunds = payment({
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

describe('payment verdicts', () => {
  it('calls a covered balance or a succeeded payment paid, and says what is still due', () => {
    expect(paidVerdict({ balanceDue: 0, paid: 638, currency: 'EUR', payments: [payment()] })).toEqual({
      state: 'paid',
      diagnosis: { code: 'ok', message: 'Paid in full: 638 EUR received. Nothing to do.' },
    });
    // A succeeded installment with a balance left is not "paid" (docs/product-spec.md §3.2).
    expect(paidVerdict({ balanceDue: 40, currency: 'EUR', payments: [payment()] })).toBeUndefined();
    expect(amountsOf({ balanceDue: 40, paid: 598, payments: [payment()] })).toEqual({ amountPaid: 598, amountDue: 40 });
    expect(amountsOf({ payments: [payment({ amount: 100 }), payment({ status: 'PENDING', amount: 50 })] })).toEqual({
      amountPaid: 100,
      amountDue: 50,
    });
    expect(paidVerdict({ balanceDue: 0, payments: [] })?.diagnosis.message).toBe('Nothing is due on this reservation.');
    expect(paidVerdict({ balanceDue: 594, payments: [insufficientFunds] })).toBeUndefined();
    expect(paidVerdict({})).toBeUndefined();
  });

  it("takes the newest listed method, filling its provider from the session's facts", () => {
    const methods = [
      { _id: 'pm_old', paymentProviderId: 'pp-a', createdAt: '2026-01-01T00:00:00.000Z' },
      { _id: 'pm_new', createdAt: '2026-01-03T00:00:00.000Z', payload: { card: { last4: '4242' } } },
      { _id: 'pm_mid', paymentProviderId: 'pp-a', createdAt: '2026-01-02T00:00:00.000Z' },
    ].map(methodOnFileOf);
    expect(currentMethod(methods, { paymentMethodId: 'pm_new', tokenizedUnder: 'pp-b' })).toEqual({
      id: 'pm_new',
      paymentProviderId: 'pp-b',
      last4: '4242',
    });
    expect(currentMethod(methods, {})).toEqual({ id: 'pm_new', paymentProviderId: undefined, last4: '4242' });
  });

  it('falls back to the session method while the list does not show it, and to nothing without one', () => {
    expect(currentMethod([], { paymentMethodId: 'pm_s', tokenizedUnder: 'pp-a', last4: '1111' })).toEqual({
      id: 'pm_s',
      paymentProviderId: 'pp-a',
      last4: '1111',
    });
    expect(currentMethod([], { tokenizedUnder: 'pp-a' })).toBeUndefined();
  });

  it("takes the method's payments, or every payment when the upstream links none", () => {
    const first = payment({ _id: 'pay_a', status: 'FAILED' });
    const other = payment({ _id: 'pay_c', paymentMethodId: 'pm_2' });
    expect(paymentsOf([first, other], 'pm_1').map((p) => p.id)).toEqual(['pay_a']);
    expect(paymentsOf([payment({ paymentMethodId: undefined })], 'pm_1').map((p) => p.id)).toEqual(['pay_1']);
  });

  it("reports a failed payment as a processor error with the processor's own words", () => {
    expect(processorErrorVerdict(insufficientFunds)).toEqual({
      state: 'failed',
      diagnosis: {
        code: 'processor_error',
        category: 'insufficient_funds',
        message:
          'The processor or card issuer refused the payment of 564 GBP with the card ending 0341: "Your card has insufficient funds." (insufficient_funds). ' +
          'Ask the guest to pay with another card (the checkout session takes a replacement card) or to contact their bank.',
      },
    });
    const leaky = payment({
      status: 'FAILED',
      attempts: [{ error: 'card 4242 4242 4242 4242 refused', payload: { decline_code: 'do_not_honor; drop table' } }],
    });
    const message = processorErrorVerdict(leaky).diagnosis.message;
    expect(message).not.toMatch(/4242 4242/);
    expect(message).not.toMatch(/drop table/);
    expect(processorErrorVerdict(payment({ status: 'FAILED' })).diagnosis.message).toMatch(/without giving a reason/);
  });

  it('a charge waiting for authentication asks the guest for it (never "under way"), with only an acceptable address', () => {
    const url = 'https://issuer.example/charges/pay_1/authenticate';
    const waiting = payment({ status: 'PENDING_AUTH', authenticationRequiredData: { authenticationUrl: url } });
    expect(scheduleVerdict([waiting], () => true)).toMatchObject({
      state: 'requires_authentication',
      nextAction: { type: 'redirect', redirectUrl: url },
      diagnosis: { code: 'authentication_required' },
    });
    const refused = scheduleVerdict([waiting], () => false);
    expect(refused).toMatchObject({ state: 'requires_authentication', diagnosis: { code: 'authentication_required' } });
    expect(refused?.nextAction).toBeUndefined();
  });

  it("judges the current card's payments: failed, scheduled with the next one, or nothing to judge", () => {
    expect(scheduleVerdict([insufficientFunds, payment({ status: 'PENDING' })], () => true)?.state).toBe('failed');
    const later = payment({ _id: 'pay_2', status: 'PENDING', amount: 300, shouldBePaidAt: '2026-03-01T00:00:00.000Z' });
    const sooner = payment({ _id: 'pay_3', status: 'PENDING', amount: 264, shouldBePaidAt: '2026-02-01T00:00:00.000Z' });
    expect(scheduleVerdict([payment(), later, sooner], () => true)).toMatchObject({
      state: 'scheduled',
      nextPayment: { amount: 264, dueAt: '2026-02-01T00:00:00.000Z' },
    });
    expect(scheduleVerdict([payment()], () => true)).toBeUndefined();
    expect(scheduleVerdict([], () => true)).toBeUndefined();
  });

  it('calls a balance no payment covers "due", never processing, once the card\'s payments went through', () => {
    // An extra of 70 added after the 660 was paid: the platform shows the balance and schedules nothing.
    const money = { balanceDue: 70, paid: 660, currency: 'USD', payments: [payment({ amount: 660, currency: 'USD' })] };
    expect(balanceDueVerdict(money.payments, money)).toEqual({
      state: 'balance_due',
      diagnosis: {
        code: 'ok',
        message: expect.stringMatching(/^70 USD is due and no payment of it is scheduled on the card: the host collects it/),
      },
    });
    // A card with no payment yet is still waiting for its first; one with a payment pending is scheduled.
    expect(balanceDueVerdict([], { balanceDue: 70 })).toBeUndefined();
    expect(balanceDueVerdict([payment(), payment({ status: 'PENDING' })], { balanceDue: 70 })).toBeUndefined();
    expect(balanceDueVerdict([payment()], { balanceDue: 0 })).toBeUndefined();
  });

  it('names both providers and the remedy on a mismatch', () => {
    const verdict = providerMismatchVerdict({ id: 'pm_max', paymentProviderId: 'pp-city', last4: '4242' }, 'pp-seaside', 'lst-seaside');
    expect(verdict.state).toBe('missing');
    expect(verdict.diagnosis.code).toBe('provider_mismatch');
    expect(verdict.diagnosis.message).toMatch(
      /^The card ending 4242 was tokenized under payment provider pp-city, but listing lst-seaside is paid through pp-seaside/,
    );
    expect(verdict.diagnosis.message).toMatch(/enter the card again/);
  });

  it('words a waiting card and a missing one for an operator', () => {
    expect(attachedVerdict({ id: 'pm_1' }, 'pp-a')).toMatchObject({
      state: 'payment_method_attached',
      diagnosis: { code: 'ok', message: expect.stringMatching(/^The card is attached under .*\(pp-a\)/) },
    });
    expect(notAttachedVerdict()).toMatchObject({ state: 'missing', diagnosis: { code: 'not_attached' } });
  });

  it('keeps only the safe fields of each payment', () => {
    const raw = {
      _id: 'pay_1',
      amount: 564,
      currency: 'GBP',
      status: 'FAILED',
      paymentMethodId: 'pm_1',
      guestId: 'guest-fay',
      createdAt: '2026-01-02T10:00:00.000Z',
      shouldBePaidAt: '2026-01-02T10:00:00.000Z',
      refunds: [],
      attempts: [{ status: 'FAILED', payload: { decline_code: 'insufficient_funds', payment_method: { card: { last4: '0341' } } } }],
    };
    const [safe] = safePayments([paymentOf(raw)], [], {});
    expect(safe).toEqual({
      id: 'pay_1',
      status: 'FAILED',
      amount: 564,
      currency: 'GBP',
      dueAt: '2026-01-02T10:00:00.000Z',
      createdAt: '2026-01-02T10:00:00.000Z',
      last4: '0341',
    });
    const paid = payment({ attempts: [{ status: 'SUCCEEDED', createdAt: '2026-01-02T10:00:01.000Z' }] });
    expect(safePayments([paid], [], {})[0].paidAt).toBe('2026-01-02T10:00:01.000Z');
    const labelled = safePayments(
      [payment(), payment({ _id: 'pay_2', paymentMethodId: 'pm_2' })],
      [methodOnFileOf({ _id: 'pm_2', payload: { card: { last4: '4242424242424242' } } })],
      { paymentMethodId: 'pm_1', last4: '5555' },
    );
    expect(labelled.map((item) => item.last4)).toEqual(['5555', undefined]);
  });
});
