import { PaymentDiagnosis } from './payment-diagnosis';

const LAST4 = /^\d{4}$/;

/**
 * The diagnosis in words for the guest (the site shows them): what happened and what the guest can
 * do, never the processor's or issuer's own words, provider ids or operator advice. The operator's
 * wording stays on the admin route (docs/product-spec.md §3.2).
 */
export function forGuest(answer: PaymentDiagnosis, last4?: string): PaymentDiagnosis {
  const card = last4 && LAST4.test(last4) ? `your card ending ${last4}` : 'your card';
  return { ...answer, diagnosis: { code: answer.diagnosis.code, message: guestMessage(answer, card) } };
}

function guestMessage(answer: PaymentDiagnosis, card: string): string {
  switch (answer.diagnosis.code) {
    case 'processor_error':
      return `The payment with ${card} could not be completed. Please pay with another card or contact your bank.`;
    case 'provider_mismatch':
      return `${capitalised(card)} cannot be charged for this booking. Please enter your card again.`;
    case 'not_attached':
      return 'No card is on file for this booking yet. Please complete the checkout with a card.';
    case 'ok':
      if (answer.state === 'paid') return 'Your booking is paid. Nothing more to do.';
      return `${capitalised(card)} is on file; the payment is being processed. Check again in a moment.`;
  }
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
