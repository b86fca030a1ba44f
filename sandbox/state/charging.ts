/**
 * How the platform charges (docs/upstream.md, "Guest payment method"): attaching a card charges
 * nothing by itself. It moves the reservation's waiting auto-payments to the card and schedules
 * what the listing's payment policy leaves uncovered; each installment is charged a moment after
 * its shouldBePaidAt (PENDING → SUCCEEDED / FAILED, or PENDING_AUTH when the guest must
 * authenticate).
 */
import { authenticationRequiredAttempt, insufficientFundsAttempt } from './charges';
import { outstandingBalance, roundMoney } from './money';
import type { PaymentMethodRecord, PaymentPolicy, PaymentRecord, ReservationRecord } from './records';
import { newId, type SandboxStore } from './store';

const DAY_MS = 24 * 3600 * 1000;

export const PAYMENT_POLICIES = {
  atBooking: { name: 'all at booking', installments: [{ share: 1 }] },
  split: {
    name: '50 % at booking, 50 % 14 days before check-in',
    installments: [{ share: 0.5 }, { share: 0.5, daysBeforeCheckIn: 14 }],
  },
  beforeCheckIn: { name: 'all 7 days before check-in', installments: [{ share: 1, daysBeforeCheckIn: 7 }] },
} satisfies Record<string, PaymentPolicy>;

/**
 * What happened to a payment, for the webhooks the platform sends about it: a payments event's name,
 * or `authentication.required`, which sends no payments event (none known to fire names it).
 */
export type ChargeEventType = 'payments.received' | 'payments.failed' | 'authentication.required';

export interface ChargeEvent {
  type: ChargeEventType;
  reservation: ReservationRecord;
  payment: PaymentRecord;
}

export interface ChargeTiming {
  /** How long after an attach its payments show in money.payments. */
  visibilityDelayMs: number;
  /** How long after it is due (and visible) a charge settles. */
  settleDelayMs: number;
}

export function policyOf(store: SandboxStore, listingId: string): PaymentPolicy {
  return store.paymentPolicies.get(listingId) ?? PAYMENT_POLICIES.atBooking;
}

/** Payments the platform will still charge: scheduled or being charged, not yet settled. */
function waiting(payment: PaymentRecord): boolean {
  return payment.status === 'PENDING' || payment.status === 'PENDING_AUTH';
}

/**
 * The attach's effect on the reservation: its waiting payments move to the new card, and what no
 * payment covers yet is scheduled by the listing's policy (an installment whose date passed is due now).
 */
export function scheduleOnAttach(
  store: SandboxStore,
  reservation: ReservationRecord,
  method: PaymentMethodRecord,
  now: number,
  timing: ChargeTiming,
): void {
  for (const payment of reservation.payments.filter((p) => p.status === 'PENDING')) {
    payment.paymentMethodId = method._id;
    payment.paymentProviderId = method.paymentProviderId;
    payment.charge = method.charge ?? 'succeeds';
  }
  const scheduled = reservation.payments.filter((p) => waiting(p) && !p.isAuthorizationHold).reduce((sum, p) => sum + p.amount, 0);
  const uncovered = roundMoney(outstandingBalance(reservation) - scheduled);
  if (uncovered <= 0) return;
  const checkIn = Date.parse(reservation.checkIn);
  const { installments } = policyOf(store, reservation.listingId);
  let left = uncovered;
  installments.forEach((installment, index) => {
    const amount = index === installments.length - 1 ? roundMoney(left) : roundMoney(uncovered * installment.share);
    left = roundMoney(left - amount);
    if (amount <= 0) return;
    const due = installment.daysBeforeCheckIn === undefined ? now : checkIn - installment.daysBeforeCheckIn * DAY_MS;
    reservation.payments.push({
      _id: newId('pay_'),
      amount,
      currency: reservation.currency,
      status: 'PENDING',
      paymentMethodId: method._id,
      paymentProviderId: method.paymentProviderId,
      guestId: reservation.guestId,
      createdAt: now,
      visibleAt: now + timing.visibilityDelayMs,
      shouldBePaidAt: Math.max(now, due),
      charge: method.charge ?? 'succeeds',
      attempts: [],
    });
  });
}

/** Charges every payment that is due and whose moment came; returns what happened, for the webhooks. */
export function settleDuePayments(
  store: SandboxStore,
  now: number,
  timing: ChargeTiming,
  authenticationUrl: (paymentId: string) => string,
): ChargeEvent[] {
  const events: ChargeEvent[] = [];
  for (const reservation of store.reservations.values()) {
    for (const payment of reservation.payments) {
      if (payment.status !== 'PENDING' || payment.shouldBePaidAt === undefined || payment.shouldBePaidAt > now) continue;
      payment.settlesAt ??= Math.max(payment.visibleAt, payment.shouldBePaidAt) + timing.settleDelayMs;
      if (payment.settlesAt > now) continue;
      const card = cardOf(store, payment);
      if (payment.charge === 'insufficient_funds') {
        payment.status = 'FAILED';
        payment.attempts.push(insufficientFundsAttempt(card));
        events.push({ type: 'payments.failed', reservation, payment });
      } else if (payment.charge === 'requires_authentication') {
        payment.status = 'PENDING_AUTH';
        payment.authenticationUrl = authenticationUrl(payment._id);
        payment.attempts.push(authenticationRequiredAttempt(card));
        events.push({ type: 'authentication.required', reservation, payment });
      } else {
        payment.status = 'SUCCEEDED';
        payment.paidAt = payment.settlesAt;
        payment.attempts.push({ status: 'SUCCEEDED' });
        events.push({ type: 'payments.received', reservation, payment });
      }
    }
  }
  return events;
}

/** The guest's answer on the issuer's page for a charge that waits for authentication. */
export function completeAuthentication(
  store: SandboxStore,
  paymentId: string,
  authenticated: boolean,
  now: number,
): ChargeEvent | undefined {
  for (const reservation of store.reservations.values()) {
    const payment = reservation.payments.find((p) => p._id === paymentId);
    if (!payment || payment.status !== 'PENDING_AUTH') continue;
    if (authenticated) {
      payment.status = 'SUCCEEDED';
      payment.paidAt = now;
      payment.attempts.push({ status: 'SUCCEEDED' });
      return { type: 'payments.received', reservation, payment };
    }
    payment.status = 'FAILED';
    payment.attempts.push({
      status: 'FAILED',
      error: 'The card holder did not complete the authentication.',
      payload: {
        code: 'payment_intent_authentication_failure',
        decline_code: 'authentication_failed',
        message: 'The card holder did not complete the authentication.',
        payment_method: { card: cardOf(store, payment) },
      },
    });
    return { type: 'payments.failed', reservation, payment };
  }
  return undefined;
}

export function findPayment(
  store: SandboxStore,
  paymentId: string,
): { reservation: ReservationRecord; payment: PaymentRecord } | undefined {
  for (const reservation of store.reservations.values()) {
    const payment = reservation.payments.find((p) => p._id === paymentId);
    if (payment) return { reservation, payment };
  }
  return undefined;
}

function cardOf(store: SandboxStore, payment: PaymentRecord): { brand: string; last4: string } {
  const card = store.paymentMethods.get(payment.paymentMethodId)?.card;
  return { brand: card?.brand ?? 'visa', last4: card?.last4 ?? '0000' };
}
