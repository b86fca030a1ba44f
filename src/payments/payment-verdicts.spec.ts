import { UpstreamPayment, UpstreamPaymentMethod } from '../upstream/guesty.types';
import {
  attachedVerdict,
  currentMethod,
  latestPaymentFor,
  notAttachedVerdict,
  paidVerdict,
  paymentVerdict,
  processorErrorVerdict,
  providerMismatchVerdict,
  safePayments,
} from './payment-verdicts';

function payment(overrides: Partial<UpstreamPayment> = {}): UpstreamPayment {
  return { _id: 'pay_1', amount: 564, currency: 'GBP', status: 'SUCCEEDED', paymentMethodId: 'pm_1', createdAt: '2026-01-02T10:00:00.000Z', ...overrides };
}

const insufficientFunds = payment({
  status: 'FAILED',
  attempts: [
    { status: 'FAILED', payload: { code: 'card_declined', decline_code: 'insufficient_funds', message: 'Your card has insufficient funds.', payment_method: { card: { brand: 'visa', last4: '0341' } } } },
  ],
});

describe('payment verdicts', () => {
  it('calls a covered balance or a succeeded payment paid, and says what is still due', () => {
    expect(paidVerdict({ balanceDue: 0, totalPaid: 638, currency: 'EUR', payments: [payment()] })).toEqual({
      state: 'paid',
      diagnosis: { code: 'ok', message: 'Paid in full: 638 EUR received. Nothing to do.' },
    });
    expect(paidVerdict({ balanceDue: 40, currency: 'EUR', payments: [payment()] })?.diagnosis.message).toMatch(/40 EUR is still due/);
    expect(paidVerdict({ balanceDue: 0, payments: [] })?.diagnosis.message).toBe('Nothing is due on this reservation.');
    expect(paidVerdict({ balanceDue: 594, payments: [insufficientFunds] })).toBeUndefined();
    expect(paidVerdict({})).toBeUndefined();
  });

  it("takes the newest listed method, filling its provider from the session's facts", () => {
    const methods: UpstreamPaymentMethod[] = [
      { _id: 'pm_old', paymentProviderId: 'pp-a', createdAt: '2026-01-01T00:00:00.000Z' },
      { _id: 'pm_new', createdAt: '2026-01-03T00:00:00.000Z', card: { last4: '4242' } },
      { _id: 'pm_mid', paymentProviderId: 'pp-a', createdAt: '2026-01-02T00:00:00.000Z' },
    ];
    expect(currentMethod(methods, { paymentMethodId: 'pm_new', tokenizedUnder: 'pp-b' })).toEqual({ id: 'pm_new', paymentProviderId: 'pp-b', last4: '4242' });
    expect(currentMethod(methods, {})).toEqual({ id: 'pm_new', paymentProviderId: undefined, last4: '4242' });
  });

  it('falls back to the session method while the list does not show it, and to nothing without one', () => {
    expect(currentMethod([], { paymentMethodId: 'pm_s', tokenizedUnder: 'pp-a', last4: '1111' })).toEqual({ id: 'pm_s', paymentProviderId: 'pp-a', last4: '1111' });
    expect(currentMethod([], { tokenizedUnder: 'pp-a' })).toBeUndefined();
  });

  it("finds the method's newest payment, or any payment when the upstream links none", () => {
    const first = payment({ _id: 'pay_a', status: 'FAILED' });
    const second = payment({ _id: 'pay_b', status: 'PENDING', createdAt: '2026-01-03T00:00:00.000Z' });
    const other = payment({ _id: 'pay_c', paymentMethodId: 'pm_2', createdAt: '2026-01-04T00:00:00.000Z' });
    expect(latestPaymentFor([first, second, other], 'pm_1')?._id).toBe('pay_b');
    expect(latestPaymentFor([other], 'pm_1')).toBeUndefined();
    expect(latestPaymentFor([payment({ paymentMethodId: undefined })], 'pm_1')?._id).toBe('pay_1');
  });

  it("reports a failed payment as a processor error with the processor's own words", () => {
    expect(processorErrorVerdict(insufficientFunds)).toEqual({
      state: 'missing',
      diagnosis: {
        code: 'processor_error',
        message:
          'The processor or card issuer refused the payment of 564 GBP with the card ending 0341: "Your card has insufficient funds." (insufficient_funds). ' +
          'Ask the guest to pay with another card or to contact their bank.',
      },
    });
    const leaky = payment({ status: 'FAILED', attempts: [{ error: 'card 4242 4242 4242 4242 refused', payload: { decline_code: 'do_not_honor; drop table' } }] });
    const message = processorErrorVerdict(leaky).diagnosis.message;
    expect(message).not.toMatch(/4242 4242/);
    expect(message).not.toMatch(/drop table/);
    expect(processorErrorVerdict(payment({ status: 'FAILED' })).diagnosis.message).toMatch(/without giving a reason/);
  });

  it('judges the payment of the current method: failed, under way, or nothing to judge', () => {
    expect(paymentVerdict(insufficientFunds)?.diagnosis.code).toBe('processor_error');
    expect(paymentVerdict(payment({ status: 'PENDING_AUTH' }))).toMatchObject({ state: 'payment_method_attached', diagnosis: { code: 'ok' } });
    expect(paymentVerdict(payment())).toBeUndefined();
    expect(paymentVerdict(undefined)).toBeUndefined();
  });

  it('names both providers and the remedy on a mismatch', () => {
    const verdict = providerMismatchVerdict({ id: 'pm_max', paymentProviderId: 'pp-city', last4: '4242' }, 'pp-seaside', 'lst-seaside');
    expect(verdict.state).toBe('missing');
    expect(verdict.diagnosis.code).toBe('provider_mismatch');
    expect(verdict.diagnosis.message).toMatch(/^The card ending 4242 was tokenized under payment provider pp-city, but listing lst-seaside is paid through pp-seaside/);
    expect(verdict.diagnosis.message).toMatch(/enter the card again/);
  });

  it('words a waiting card and a missing one for an operator', () => {
    expect(attachedVerdict({ id: 'pm_1' }, 'pp-a')).toMatchObject({ state: 'payment_method_attached', diagnosis: { code: 'ok', message: expect.stringMatching(/^The card is attached under .*\(pp-a\)/) } });
    expect(notAttachedVerdict()).toMatchObject({ state: 'missing', diagnosis: { code: 'not_attached' } });
  });

  it('keeps only the safe fields of each payment', () => {
    const raw = { ...insufficientFunds, guestId: 'guest-fay', paymentProviderId: 'pp-mountain', refunds: [] } as UpstreamPayment;
    const [safe] = safePayments([raw], [], {});
    expect(safe).toEqual({ id: 'pay_1', status: 'FAILED', amount: 564, currency: 'GBP', createdAt: '2026-01-02T10:00:00.000Z', last4: '0341', paymentProviderId: 'pp-mountain' });
    const labelled = safePayments([payment(), payment({ _id: 'pay_2', paymentMethodId: 'pm_2' })], [{ _id: 'pm_2', card: { last4: '4242424242424242' } }], { paymentMethodId: 'pm_1', last4: '5555' });
    expect(labelled.map((item) => item.last4)).toEqual(['5555', undefined]);
  });
});
