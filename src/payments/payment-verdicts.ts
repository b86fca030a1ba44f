import { scrubText } from '../common/logging/redaction';
import { UpstreamPayment, UpstreamPaymentMethod, UpstreamReservation } from '../upstream/guesty.types';
import { KnownPaymentFacts, PaymentDiagnosis, SafePayment } from './payment-diagnosis';

/*
 * The verdicts of the money.payments diagnostics, as pure functions of what the upstream showed.
 * Messages are for an operator (or the site) to act on: what happened, and what to do next.
 */

export type Money = NonNullable<UpstreamReservation['money']>;
export type Verdict = Omit<PaymentDiagnosis, 'payments'>;

/** The method whose payment the reservation waits for. */
export interface AttachedMethod {
  id: string;
  paymentProviderId?: string;
  last4?: string;
}

const LAST4 = /^\d{4}$/;
const CODE_WORD = /^[A-Za-z0-9_.-]{1,64}$/;

function formatAmount(amount: number | undefined, currency: string | undefined): string {
  if (typeof amount !== 'number') return 'the balance';
  const value = Number.isInteger(amount) ? String(amount) : amount.toFixed(2);
  return currency ? `${value} ${currency}` : value;
}

function cardLabel(last4: string | undefined): string {
  return last4 && LAST4.test(last4) ? `the card ending ${last4}` : 'the card';
}

function sentence(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function timeOf(value: { createdAt?: string }): number {
  const time = Date.parse(value.createdAt ?? '');
  return Number.isNaN(time) ? Number.NEGATIVE_INFINITY : time;
}

/** The newest by createdAt; on a tie (or without dates) the later one in the upstream's order. */
function newest<T extends { createdAt?: string }>(items: T[]): T | undefined {
  return items.reduce<T | undefined>((best, item) => (best === undefined || timeOf(item) >= timeOf(best) ? item : best), undefined);
}

function attemptCard(payment: UpstreamPayment): string | undefined {
  return payment.attempts?.map((attempt) => attempt.payload?.payment_method?.card?.last4).find((last4) => last4 !== undefined);
}

/** Only the safe fields of each payment; a last4 that is not 4 digits is dropped rather than shown. */
export function safePayments(payments: UpstreamPayment[], methods: UpstreamPaymentMethod[], known: KnownPaymentFacts): SafePayment[] {
  return payments.map((payment) => {
    const sessionCard = payment.paymentMethodId !== undefined && payment.paymentMethodId === known.paymentMethodId ? known.last4 : undefined;
    const last4 = attemptCard(payment) ?? methods.find((method) => method._id === payment.paymentMethodId)?.card?.last4 ?? sessionCard;
    return {
      id: payment._id,
      status: payment.status,
      amount: payment.amount,
      currency: payment.currency,
      ...(payment.createdAt ? { createdAt: payment.createdAt } : {}),
      ...(last4 && LAST4.test(last4) ? { last4 } : {}),
      ...(payment.paymentProviderId ? { paymentProviderId: payment.paymentProviderId } : {}),
    };
  });
}

/** Paid: the balance is covered, or a payment succeeded (the rest may be due for items added since). */
export function paidVerdict(money: Money): Verdict | undefined {
  const succeeded = (money.payments ?? []).filter((payment) => payment.status === 'SUCCEEDED');
  const covered = typeof money.balanceDue === 'number' ? money.balanceDue <= 0 : money.isFullyPaid === true;
  if (!covered && succeeded.length === 0) return undefined;
  let message: string;
  if (covered && succeeded.length === 0) message = 'Nothing is due on this reservation.';
  else if (covered) message = `Paid in full: ${formatAmount(money.totalPaid, money.currency)} received. Nothing to do.`;
  else message = `A payment succeeded, but ${formatAmount(money.balanceDue, money.currency)} is still due (added after the payment, or a partial payment). Ask the guest to pay the rest.`;
  return { state: 'paid', diagnosis: { code: 'ok', message } };
}

/** The newest method listed for the reservation; the session's own while the list does not show it yet. */
export function currentMethod(methods: UpstreamPaymentMethod[], known: KnownPaymentFacts): AttachedMethod | undefined {
  const listed = newest(methods);
  if (listed) {
    const fromSession = listed._id === known.paymentMethodId;
    return {
      id: listed._id,
      paymentProviderId: listed.paymentProviderId ?? (fromSession ? known.tokenizedUnder : undefined),
      last4: listed.card?.last4 ?? (fromSession ? known.last4 : undefined),
    };
  }
  if (!known.paymentMethodId) return undefined;
  return { id: known.paymentMethodId, paymentProviderId: known.tokenizedUnder, last4: known.last4 };
}

/** The newest payment of this method; every payment when the upstream links none to a method. */
export function latestPaymentFor(payments: UpstreamPayment[], methodId: string): UpstreamPayment | undefined {
  const linked = payments.some((payment) => payment.paymentMethodId !== undefined);
  return newest(linked ? payments.filter((payment) => payment.paymentMethodId === methodId) : payments);
}

export function latestFailedPayment(payments: UpstreamPayment[]): UpstreamPayment | undefined {
  return newest(payments.filter((payment) => payment.status === 'FAILED'));
}

/** The processor's or issuer's own words from the newest attempt that has some, scrubbed. */
function processorWords(payment: UpstreamPayment): { message?: string; reason?: string } {
  for (const attempt of [...(payment.attempts ?? [])].reverse()) {
    const text = attempt.payload?.message ?? (typeof attempt.error === 'string' ? attempt.error : undefined);
    const reason = attempt.payload?.decline_code ?? attempt.payload?.code;
    if (text || reason) {
      return {
        ...(text ? { message: scrubText(text).trim().slice(0, 300) } : {}),
        ...(reason && CODE_WORD.test(reason) ? { reason } : {}),
      };
    }
  }
  return {};
}

export function processorErrorVerdict(payment: UpstreamPayment): Verdict {
  const { message, reason } = processorWords(payment);
  const what = `The processor or card issuer refused the payment of ${formatAmount(payment.amount, payment.currency)} with ${cardLabel(attemptCard(payment))}`;
  const why = message ? `: "${message}"${reason ? ` (${reason})` : ''}.` : reason ? ` (${reason}).` : ', without giving a reason.';
  return {
    state: 'missing',
    diagnosis: { code: 'processor_error', message: `${what}${why} Ask the guest to pay with another card or to contact their bank.` },
  };
}

/** A payment of the current method that has neither succeeded nor failed: it is under way. */
export function paymentVerdict(payment: UpstreamPayment | undefined): Verdict | undefined {
  if (!payment || payment.status === 'SUCCEEDED') return undefined;
  if (payment.status === 'FAILED') return processorErrorVerdict(payment);
  return {
    state: 'payment_method_attached',
    diagnosis: {
      code: 'ok',
      message: `A payment of ${formatAmount(payment.amount, payment.currency)} is under way (status ${payment.status}); it has not succeeded yet. Check again shortly.`,
    },
  };
}

export function providerMismatchVerdict(method: AttachedMethod & { paymentProviderId: string }, listingProviderId: string, listingId: string): Verdict {
  return {
    state: 'missing',
    diagnosis: {
      code: 'provider_mismatch',
      message:
        `${sentence(cardLabel(method.last4))} was tokenized under payment provider ${method.paymentProviderId}, ` +
        `but listing ${listingId} is paid through ${listingProviderId}, so the platform will never charge it. ` +
        `Ask the guest to enter the card again, so that it is tokenized under ${listingProviderId}.`,
    },
  };
}

export function attachedVerdict(method: AttachedMethod, listingProviderId: string | undefined): Verdict {
  const under = listingProviderId ? ` under the listing's payment provider (${listingProviderId})` : '';
  return {
    state: 'payment_method_attached',
    diagnosis: {
      code: 'ok',
      message:
        `${sentence(cardLabel(method.last4))} is attached${under}, but its payment does not show yet. ` +
        'Payments appear after a moment; check again shortly. If none appears, check the payment account at the booking platform.',
    },
  };
}

export function notAttachedVerdict(): Verdict {
  return {
    state: 'missing',
    diagnosis: {
      code: 'not_attached',
      message: 'No payment method was ever attached to this reservation, so there is nothing to charge. Ask the guest to complete checkout with a card.',
    },
  };
}
