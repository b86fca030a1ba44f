import type { PaymentAttempt } from './records';

/** The processor's answer for the insufficient-funds test card, as money.payments[].attempts shows it. */
export function insufficientFundsAttempt(card: { brand: string; last4: string }): PaymentAttempt {
  return {
    status: 'FAILED',
    error: 'Your card has insufficient funds.',
    payload: {
      code: 'card_declined',
      decline_code: 'insufficient_funds',
      message: 'Your card has insufficient funds.',
      payment_method: { card: { brand: card.brand, last4: card.last4 } },
    },
  };
}

/** The processor's answer when the charge needs the card holder's authentication (PENDING_AUTH). */
export function authenticationRequiredAttempt(card: { brand: string; last4: string }): PaymentAttempt {
  return {
    status: 'PENDING_AUTH',
    error: "This payment requires the card holder's authentication.",
    payload: {
      code: 'authentication_required',
      decline_code: 'authentication_required',
      message: "This payment requires the card holder's authentication.",
      payment_method: { card: { brand: card.brand, last4: card.last4 } },
    },
  };
}
