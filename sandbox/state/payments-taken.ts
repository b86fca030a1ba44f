/**
 * What the property does with a reservation's payments at the platform besides the card's
 * auto-payments (the payments API of 2026-10-21): a payment taken, an authorization hold and its one
 * capture, a refund in full or in part that may still be PROCESSING. Tests steer them through `control`.
 */
import { roundMoney } from './money';
import type { PaymentRecord, RefundRecord, ReservationRecord } from './records';
import { newId, type SandboxStore } from './store';

export type RefundStatus = RefundRecord['status'];

export interface PaymentToTake {
  amount: number;
  status?: 'SUCCEEDED' | 'PENDING' | 'PENDING_AUTH' | 'FAILED';
  /** An authorization hold, or a security deposit (a hold too): held, never paid until captured. */
  hold?: 'authorization' | 'securityDeposit';
}

function reservationOf(store: SandboxStore, reservationId: string): ReservationRecord {
  const reservation = store.reservations.get(reservationId);
  if (!reservation) throw new Error(`Unknown sandbox reservation ${reservationId}`);
  return reservation;
}

function paymentOf(reservation: ReservationRecord, paymentId: string): PaymentRecord {
  const payment = reservation.payments.find((candidate) => candidate._id === paymentId);
  if (!payment) throw new Error(`Reservation ${reservation._id} has no payment ${paymentId}`);
  return payment;
}

function positive(amount: number, what: string): number {
  if (!Number.isFinite(amount) || amount <= 0) throw new Error(`${what} must be a positive amount`);
  return roundMoney(amount);
}

/** A payment the property took, by the guest's card on this reservation when there is one; visible at once. */
export function takePayment(store: SandboxStore, reservationId: string, taken: PaymentToTake, now: number): PaymentRecord {
  const reservation = reservationOf(store, reservationId);
  const method = [...store.paymentMethods.values()].find((candidate) => candidate.reservationId === reservationId);
  const status = taken.status ?? 'SUCCEEDED';
  const payment: PaymentRecord = {
    _id: newId('pay_'),
    amount: positive(taken.amount, 'a payment'),
    currency: reservation.currency,
    status,
    paymentMethodId: method?._id ?? `pm_property_${reservation._id}`,
    paymentProviderId: method?.paymentProviderId ?? store.listingProviders.get(reservation.listingId) ?? '',
    guestId: reservation.guestId,
    createdAt: now,
    visibleAt: now,
    shouldBePaidAt: now,
    attempts: status === 'PENDING' ? [] : [{ status }],
    ...(status === 'SUCCEEDED' ? { paidAt: now } : {}),
    ...(taken.hold ? { isAuthorizationHold: true } : {}),
    ...(taken.hold === 'securityDeposit' ? { isSecurityDeposit: true } : {}),
  };
  reservation.payments.push(payment);
  return payment;
}

/** Captures a hold (once, in full unless `amount`): the platform answers a new payment, and keeps the hold listed. */
export function captureHold(store: SandboxStore, reservationId: string, holdId: string, now: number, amount?: number): PaymentRecord {
  const reservation = reservationOf(store, reservationId);
  const hold = paymentOf(reservation, holdId);
  if (!hold.isAuthorizationHold || hold.status !== 'SUCCEEDED') throw new Error(`${holdId} is no authorization hold in force`);
  if (reservation.payments.some((payment) => payment.capturedHoldId === holdId)) throw new Error(`${holdId} was captured already`);
  const captured = positive(amount ?? hold.amount, 'a capture');
  if (captured > hold.amount) throw new Error('a capture takes at most what the hold holds');
  const capture = takePayment(store, reservationId, { amount: captured }, now);
  capture.paymentMethodId = hold.paymentMethodId;
  capture.capturedHoldId = holdId;
  return capture;
}

/** Refunds a succeeded payment in full (what is left of it) or in part; SUCCEEDED unless still on its way. */
export function refundPayment(
  store: SandboxStore,
  reservationId: string,
  paymentId: string,
  now: number,
  refund: { amount?: number; status?: RefundStatus } = {},
): RefundRecord {
  const payment = paymentOf(reservationOf(store, reservationId), paymentId);
  if (payment.status !== 'SUCCEEDED' || payment.isAuthorizationHold) throw new Error(`${paymentId} is no succeeded payment to refund`);
  const refunds = (payment.refunds ??= []);
  const left = roundMoney(
    payment.amount - refunds.filter((earlier) => earlier.status !== 'FAILED').reduce((sum, earlier) => sum + earlier.amount, 0),
  );
  const amount = positive(refund.amount ?? left, 'a refund');
  if (amount > left) throw new Error(`a refund takes at most what is left of the payment (${left})`);
  const record: RefundRecord = { _id: newId('refund_'), amount, status: refund.status ?? 'SUCCEEDED', createdAt: now };
  refunds.push(record);
  return record;
}

/** A refund still on its way settles (or fails) at the provider. */
export function settleRefund(store: SandboxStore, reservationId: string, paymentId: string, refundId: string, status: RefundStatus): void {
  const refund = paymentOf(reservationOf(store, reservationId), paymentId).refunds?.find((candidate) => candidate._id === refundId);
  if (!refund) throw new Error(`Payment ${paymentId} has no refund ${refundId}`);
  refund.status = status;
}
