import { FailureCategory, PaymentDiagnosis, SafePayment } from './payment-diagnosis';
import { dayText, moneyText, paymentsTogether } from './guest-formats';

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
  const amount = (value: number) => moneyText(value, answer.currency);
  switch (answer.diagnosis.code) {
    case 'processor_error':
      return `${FAILURE_WORDS[answer.diagnosis.category ?? 'processing_error'](card)} Please add another card to pay the remaining ${amount(answer.amountDue)}.`;
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
      if (answer.state === 'balance_due') {
        return `Paid so far: ${amount(answer.amountPaid)}. ${amount(answer.amountDue)} is still due and is not scheduled on ${card}: the host will collect it (they may charge ${card} or contact you). No charge is under way.`;
      }
      if (answer.state === 'scheduled' && answer.nextPayment) return scheduledMessage(answer, card, answer.nextPayment.dueAt);
      return `${capitalised(card)} is on file; its payment does not show yet. Check again in a moment.`;
  }
}

/** The payments still to be charged: those due by the next payment's day are charged together. */
function pendingPayments(payments: SafePayment[]): SafePayment[] {
  return payments.filter((payment) => payment.status === 'PENDING');
}

function scheduledMessage(answer: PaymentDiagnosis, card: string, nextDueAt: string): string {
  const amount = (value: number) => moneyText(value, answer.currency);
  const pending = pendingPayments(answer.payments);
  const together = pending.filter((payment) => (payment.dueAt ?? '').slice(0, 10) <= nextDueAt.slice(0, 10));
  const next =
    together.length > 1
      ? `${paymentsTogether(together, answer.currency)}, will be charged on ${dayText(nextDueAt)}`
      : `the next payment of ${amount(answer.nextPayment?.amount ?? 0)} will be charged on ${dayText(nextDueAt)}`;
  const unscheduled = Math.round((answer.amountDue - pending.reduce((sum, payment) => sum + payment.amount, 0)) * 100) / 100;
  const rest = unscheduled > 0 ? ` A further ${amount(unscheduled)} is due and not scheduled on the card: the host will collect it.` : '';
  return `${capitalised(card)} is on file. Paid so far: ${amount(answer.amountPaid)}; ${next}.${rest}`;
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
