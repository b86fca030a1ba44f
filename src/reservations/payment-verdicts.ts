import { scrubText } from '../common/logging/redaction';
import { PaymentMethodOnFile, PlatformPayment, ReservationMoney } from '../upstream/platform-results';
import { FailureCategory, KnownPaymentFacts, PaymentDiagnosis, SafePayment } from './payment-diagnosis';

/*
 * The verdicts of the money.payments diagnostics, as pure functions of what the upstream showed.
 * Messages are for an operator (or the site) to act on: what happened, and what to do next.
 */

export type Money = ReservationMoney;
export type Verdict = Omit<PaymentDiagnosis, 'payments' | 'amountPaid' | 'amountDue' | 'currency'>;

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

function attemptCard(payment: PlatformPayment): string | undefined {
  return payment.attempts?.map((attempt) => attempt.last4).find((last4) => last4 !== undefined);
}

function paidAtOf(payment: PlatformPayment): string | undefined {
  if (payment.status !== 'SUCCEEDED') return undefined;
  return [...(payment.attempts ?? [])].reverse().find((attempt) => attempt.status === 'SUCCEEDED' && attempt.at)?.at;
}

/** Only the safe fields of each payment; a last4 that is not 4 digits is dropped rather than shown. */
export function safePayments(payments: PlatformPayment[], methods: PaymentMethodOnFile[], known: KnownPaymentFacts): SafePayment[] {
  return payments.map((payment) => {
    const sessionCard = payment.methodId !== undefined && payment.methodId === known.paymentMethodId ? known.last4 : undefined;
    const listed = methods.find((method) => method.id === payment.methodId);
    const last4 = attemptCard(payment) ?? listed?.last4 ?? sessionCard;
    const paidAt = paidAtOf(payment);
    return {
      id: payment.id,
      status: payment.status,
      amount: payment.amount,
      currency: payment.currency,
      ...(payment.dueAt ? { dueAt: payment.dueAt } : {}),
      ...(paidAt ? { paidAt } : {}),
      ...(payment.createdAt ? { createdAt: payment.createdAt } : {}),
      ...(last4 && LAST4.test(last4) ? { last4 } : {}),
    };
  });
}

/** What the reservation shows paid and still due; from the payments when the money totals are missing. */
export function amountsOf(money: Money): { amountPaid: number; amountDue: number } {
  const payments = money.payments ?? [];
  const sum = (statuses: string[]) => payments.filter((p) => statuses.includes(p.status)).reduce((total, p) => total + p.amount, 0);
  const amountPaid = typeof money.paid === 'number' ? money.paid : sum(['SUCCEEDED']);
  const amountDue =
    typeof money.balanceDue === 'number' ? money.balanceDue : money.fullyPaid === true ? 0 : sum(['PENDING', 'PENDING_AUTH', 'FAILED']);
  return { amountPaid: round(amountPaid), amountDue: round(Math.max(0, amountDue)) };
}

function round(amount: number): number {
  return Math.round(amount * 100) / 100;
}

/** Paid: nothing is due (docs/product-spec.md §3.2); a succeeded payment with a balance left is not paid. */
export function paidVerdict(money: Money): Verdict | undefined {
  const covered = typeof money.balanceDue === 'number' ? money.balanceDue <= 0 : money.fullyPaid === true;
  if (!covered) return undefined;
  const succeeded = (money.payments ?? []).some((payment) => payment.status === 'SUCCEEDED');
  const message = succeeded
    ? `Paid in full: ${formatAmount(money.paid, money.currency)} received. Nothing to do.`
    : 'Nothing is due on this reservation.';
  return { state: 'paid', diagnosis: { code: 'ok', message } };
}

/** The newest method listed for the reservation; the session's own while the list does not show it yet. */
export function currentMethod(methods: PaymentMethodOnFile[], known: KnownPaymentFacts): AttachedMethod | undefined {
  const listed = newest(methods);
  if (listed) {
    const fromSession = listed.id === known.paymentMethodId;
    return {
      id: listed.id,
      paymentProviderId: listed.paymentProviderId ?? (fromSession ? known.tokenizedUnder : undefined),
      last4: listed.last4 ?? (fromSession ? known.last4 : undefined),
    };
  }
  if (!known.paymentMethodId) return undefined;
  return { id: known.paymentMethodId, paymentProviderId: known.tokenizedUnder, last4: known.last4 };
}

export function latestFailedPayment(payments: PlatformPayment[]): PlatformPayment | undefined {
  return newest(payments.filter((payment) => payment.status === 'FAILED'));
}

/** The processor's or issuer's own words from the newest attempt that has some, scrubbed. */
function processorWords(payment: PlatformPayment): { message?: string; reason?: string } {
  for (const attempt of [...(payment.attempts ?? [])].reverse()) {
    const text = attempt.message;
    const reason = attempt.declineCode ?? attempt.code;
    if (text || reason) {
      return {
        ...(text ? { message: scrubText(text).trim().slice(0, 300) } : {}),
        ...(reason && CODE_WORD.test(reason) ? { reason } : {}),
      };
    }
  }
  return {};
}

/** The processor's decline, in a word the site may branch on. */
export function failureCategory(payment: PlatformPayment): FailureCategory {
  const codes = (payment.attempts ?? []).flatMap((attempt) => [attempt.declineCode, attempt.code]);
  if (codes.includes('insufficient_funds')) return 'insufficient_funds';
  if (codes.some((code) => code === 'authentication_failed' || code === 'payment_intent_authentication_failure'))
    return 'authentication_failed';
  if (codes.some((code) => code !== undefined && /decline/.test(code))) return 'card_declined';
  return 'processing_error';
}

export function processorErrorVerdict(payment: PlatformPayment): Verdict {
  const { message, reason } = processorWords(payment);
  const what = `The processor or card issuer refused the payment of ${formatAmount(payment.amount, payment.currency)} with ${cardLabel(attemptCard(payment))}`;
  const why = message ? `: "${message}"${reason ? ` (${reason})` : ''}.` : reason ? ` (${reason}).` : ', without giving a reason.';
  return {
    state: 'failed',
    diagnosis: {
      code: 'processor_error',
      category: failureCategory(payment),
      message: `${what}${why} Ask the guest to pay with another card (the checkout session takes a replacement card) or to contact their bank.`,
    },
  };
}

function timeOfDue(payment: PlatformPayment): number {
  const time = Date.parse(payment.dueAt ?? payment.createdAt ?? '');
  return Number.isNaN(time) ? Number.POSITIVE_INFINITY : time;
}

/**
 * The state of the current card's payments (docs/product-spec.md §3.2): a charge waiting for the guest's
 * authentication, else a failed charge, else what is scheduled or being charged; undefined while
 * the card shows no payment at all. `acceptable` says whether an address may be sent to the guest.
 */
export function scheduleVerdict(payments: PlatformPayment[], acceptable: (url: string) => boolean): Verdict | undefined {
  const waitingForGuest = newest(payments.filter((payment) => payment.status === 'PENDING_AUTH'));
  if (waitingForGuest) {
    const url = waitingForGuest.authenticationUrl;
    const amount = formatAmount(waitingForGuest.amount, waitingForGuest.currency);
    if (url && acceptable(url)) {
      return {
        state: 'requires_authentication',
        nextAction: { type: 'redirect', redirectUrl: url },
        diagnosis: {
          code: 'authentication_required',
          message: `The charge of ${amount} waits for the guest's authentication with their card issuer (nextAction).`,
        },
      };
    }
    return {
      state: 'requires_authentication',
      diagnosis: {
        code: 'authentication_required',
        message: `The charge of ${amount} waits for the guest's authentication, but the platform gave no address the service may send the guest to. Check the payment at the booking platform.`,
      },
    };
  }
  const failed = newest(payments.filter((payment) => payment.status === 'FAILED'));
  if (failed) return processorErrorVerdict(failed);
  const next = payments.filter((payment) => payment.status === 'PENDING').sort((a, b) => timeOfDue(a) - timeOfDue(b))[0];
  if (!next) return undefined;
  const dueAt = next.dueAt ?? next.createdAt;
  return {
    state: 'scheduled',
    ...(dueAt ? { nextPayment: { amount: next.amount, dueAt } } : {}),
    diagnosis: {
      code: 'ok',
      message: `The card is on file; the next payment of ${formatAmount(next.amount, next.currency)} is ${dueAt ? `due ${dueAt}` : 'scheduled'} (status ${next.status}).`,
    },
  };
}

/**
 * A balance the platform has not scheduled on the card (docs/product-spec.md §3.2): every card
 * payment went through, none is pending, yet a balance remains (say, an extra added after the
 * schedule was paid). Nothing is being processed; the host collects it. Undefined while the card
 * shows no payment, as its first may still be on its way.
 */
export function balanceDueVerdict(payments: PlatformPayment[], money: Money): Verdict | undefined {
  const { amountDue } = amountsOf(money);
  if (amountDue <= 0 || !payments.some((payment) => payment.status === 'SUCCEEDED')) return undefined;
  if (payments.some((payment) => ['PENDING', 'PENDING_AUTH', 'FAILED'].includes(payment.status))) return undefined;
  return {
    state: 'balance_due',
    diagnosis: {
      code: 'ok',
      message:
        `${formatAmount(amountDue, money.currency)} is due and no payment of it is scheduled on the card: the host collects it ` +
        '(charging the card on file or another way). Nothing is being processed.',
    },
  };
}

/** The payments of this method; every payment when the upstream links none to a method. */
export function paymentsOf(payments: PlatformPayment[], methodId: string): PlatformPayment[] {
  const linked = payments.some((payment) => payment.methodId !== undefined);
  return linked ? payments.filter((payment) => payment.methodId === methodId) : payments;
}

export function providerMismatchVerdict(
  method: AttachedMethod & { paymentProviderId: string },
  listingProviderId: string,
  listingId: string,
): Verdict {
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
      message:
        'No payment method was ever attached to this reservation, so there is nothing to charge. Ask the guest to complete checkout with a card.',
    },
  };
}
