import { FailureCategory, PaymentDiagnosis } from './payment-diagnosis';

const LAST4 = /^\d{4}$/;

/**
 * The diagnosis in words for the guest (the site shows them): what happened and what the guest can
 * do, never the processor's or issuer's own words, provider ids or operator advice. The operator's
 * wording stays on the admin route (docs/product-spec.md §3.2).
 */
export function forGuest(answer: PaymentDiagnosis, last4?: string): PaymentDiagnosis {
  const card = last4 && LAST4.test(last4) ? `your card ending ${last4}` : 'your card';
  const { category } = answer.diagnosis;
  return { ...answer, diagnosis: { code: answer.diagnosis.code, ...(category ? { category } : {}), message: guestMessage(answer, card) } };
}

function guestMessage(answer: PaymentDiagnosis, card: string): string {
  const currency = answer.currency ? ` ${answer.currency}` : '';
  switch (answer.diagnosis.code) {
    case 'processor_error':
      return `${FAILURE_WORDS[answer.diagnosis.category ?? 'processing_error'](card)} Please add another card to pay the remaining ${answer.amountDue}${currency}.`;
    case 'authentication_required':
      return answer.nextAction
        ? `Your bank asks you to confirm the payment with ${card}. Please open the confirmation page and complete it.`
        : `Your bank asks you to confirm the payment with ${card}; please contact us to complete it.`;
    case 'provider_mismatch':
      return `${capitalised(card)} cannot be charged for this booking. Please enter your card again.`;
    case 'not_attached':
      return 'No card is on file for this booking yet. Please complete the checkout with a card.';
    case 'ok':
      if (answer.state === 'paid') return 'Your booking is paid. Nothing more to do.';
      if (answer.state === 'scheduled' && answer.nextPayment) {
        return `${capitalised(card)} is on file. Paid so far: ${answer.amountPaid}${currency}; the next payment of ${answer.nextPayment.amount}${currency} will be charged on ${answer.nextPayment.dueAt.slice(0, 10)}.`;
      }
      return `${capitalised(card)} is on file; the payment is being processed. Check again in a moment.`;
  }
}

/** What the guest is told about a failed charge: the reason in plain words, never the processor's. */
const FAILURE_WORDS: Record<FailureCategory, (card: string) => string> = {
  insufficient_funds: (card) => `The payment with ${card} was declined for insufficient funds.`,
  card_declined: (card) => `The payment with ${card} was declined by your bank.`,
  authentication_failed: (card) => `The payment with ${card} was not confirmed with your bank.`,
  processing_error: (card) => `The payment with ${card} could not be completed.`,
};

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
