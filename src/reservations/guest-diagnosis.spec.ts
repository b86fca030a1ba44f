import { forGuest } from './guest-diagnosis';
import { PaymentDiagnosis, SafePayment } from './payment-diagnosis';

function answer(overrides: Partial<PaymentDiagnosis>): PaymentDiagnosis {
  return {
    state: 'scheduled',
    currency: 'EUR',
    amountPaid: 0,
    amountDue: 0,
    diagnosis: { code: 'ok', message: 'for the operator' },
    payments: [],
    ...overrides,
  };
}

const pending = (id: string, amount: number, dueAt: string): SafePayment => ({ id, status: 'PENDING', amount, currency: 'EUR', dueAt });

describe('the payment status in words for the guest', () => {
  it('writes money with its symbol and minor units and days as dates, one way', () => {
    const failed = forGuest(
      answer({
        state: 'failed',
        currency: 'GBP',
        amountDue: 797.1,
        diagnosis: { code: 'processor_error', category: 'card_declined', message: '' },
      }),
      '0341',
    );
    expect(failed.diagnosis.message).toBe(
      'The payment with your card ending 0341 was declined by your bank. Please add another card to pay the remaining £797.10.',
    );
    const scheduled = forGuest(
      answer({
        amountPaid: 262.5,
        amountDue: 319,
        nextPayment: { amount: 319, dueAt: '2026-11-25T09:00:00.000Z' },
        payments: [pending('p2', 319, '2026-11-25T09:00:00.000Z')],
      }),
      '4242',
    );
    expect(scheduled.diagnosis.message).toBe(
      'Your card ending 4242 is on file. Paid so far: €262.50; the next payment of €319.00 will be charged on Wed 25 Nov 2026.',
    );
  });

  it('names payments due on the same day together instead of hiding the second', () => {
    const both = answer({
      amountDue: 638,
      nextPayment: { amount: 319, dueAt: '2026-11-25T00:00:00.000Z' },
      payments: [pending('p1', 319, '2026-11-25T00:00:00.000Z'), pending('p2', 319, '2026-11-25T12:00:00.000Z')],
    });
    expect(forGuest(both).diagnosis.message).toContain(
      '2 payments, €319.00 and €319.00 (€638.00 in all), will be charged on Wed 25 Nov 2026.',
    );
  });

  it('says what is due and that the host collects it when no payment covers it, never "being processed"', () => {
    const extra = forGuest(answer({ state: 'balance_due', currency: 'USD', amountPaid: 660, amountDue: 70 }), '4242');
    expect(extra.diagnosis.message).toBe(
      'Paid so far: $660.00. $70.00 is still due and is not scheduled on your card ending 4242: the host will collect it (they may charge your card ending 4242 or contact you). No charge is under way.',
    );
    const partly = answer({
      amountDue: 389,
      nextPayment: { amount: 319, dueAt: '2026-12-01T00:00:00.000Z' },
      payments: [pending('p2', 319, '2026-12-01T00:00:00.000Z')],
    });
    expect(forGuest(partly).diagnosis.message).toMatch(
      /A further €70\.00 is due and not scheduled on the card: the host will collect it\.$/,
    );
    expect(forGuest(answer({ state: 'payment_method_attached' })).diagnosis.message).not.toMatch(/processed/);
  });
});
