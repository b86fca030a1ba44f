/**
 * The reservation as a read shows it. Money is derived from invoice items and payments at read
 * time, so that a payment and its effect on totalPaid/balanceDue become visible together.
 */
import type { PaymentRecord, ReservationRecord } from './records';
import type { SandboxStore } from './store';

export function roundMoney(amount: number): number {
  return Math.round(amount * 100) / 100;
}

function invoiceTotal(reservation: ReservationRecord): number {
  return reservation.invoiceItems.reduce((sum, item) => sum + item.amount, 0);
}

/**
 * What the platform counts paid: succeeded payments less their succeeded refunds (one still
 * processing is not money back yet); an authorization hold is never paid, its capture is.
 */
function refunded(payment: PaymentRecord): number {
  return (payment.refunds ?? []).filter((refund) => refund.status === 'SUCCEEDED').reduce((sum, refund) => sum + refund.amount, 0);
}

/** The folio's totals as its overview answers them: items less taxes, and the taxes. */
export function folioTotals(reservation: ReservationRecord): { subTotalPrice: number; totalTaxes: number } {
  const taxes = reservation.invoiceItems.filter((item) => item.isTax).reduce((sum, item) => sum + item.amount, 0);
  return { subTotalPrice: roundMoney(invoiceTotal(reservation) - taxes), totalTaxes: roundMoney(taxes) };
}

function paidBy(payments: PaymentRecord[]): number {
  return payments
    .filter((payment) => payment.status === 'SUCCEEDED' && !payment.isAuthorizationHold)
    .reduce((sum, payment) => sum + payment.amount - refunded(payment), 0);
}

/** The payments list's summary fields (names inferred, reading `paymentSummary`): the platform's own totals. */
export function paymentSummary(reservation: ReservationRecord, now: number): { totalPaid: number; balanceDue: number } {
  const totalPaid = roundMoney(paidBy(reservation.payments.filter((payment) => payment.visibleAt <= now)));
  return { totalPaid, balanceDue: roundMoney(Math.max(0, invoiceTotal(reservation) - totalPaid)) };
}

/** What a new charge would be for: counts payments readers cannot see yet, so none is charged twice. */
export function outstandingBalance(reservation: ReservationRecord): number {
  return roundMoney(Math.max(0, invoiceTotal(reservation) - paidBy(reservation.payments)));
}

export function paymentView(payment: PaymentRecord): Record<string, unknown> {
  // The reference's payment fields only (docs/upstream-reference/open-api-subset.json): no paidAt,
  // no paymentProviderId; when it was paid shows as its succeeded attempt's createdAt.
  return {
    _id: payment._id,
    amount: payment.amount,
    currency: payment.currency,
    status: payment.status,
    paymentMethodId: payment.paymentMethodId,
    guestId: payment.guestId,
    createdAt: new Date(payment.createdAt).toISOString(),
    shouldBePaidAt: new Date(payment.shouldBePaidAt ?? payment.createdAt).toISOString(),
    isAuthorizationHold: payment.isAuthorizationHold === true,
    ...(payment.isSecurityDeposit ? { isSecurityDeposit: true } : {}),
    paymentMethodStatus: 'ACTIVE',
    ...(payment.status === 'PENDING_AUTH' && payment.authenticationUrl
      ? { authenticationRequiredData: { authenticationUrl: payment.authenticationUrl } }
      : {}),
    attempts: payment.attempts.map((attempt) => ({
      ...attempt,
      ...(attempt.status === 'SUCCEEDED' && payment.paidAt !== undefined ? { createdAt: new Date(payment.paidAt).toISOString() } : {}),
    })),
    refunds: (payment.refunds ?? []).map((refund) => ({
      _id: refund._id,
      amount: refund.amount,
      status: refund.status,
      createdAt: new Date(refund.createdAt).toISOString(),
    })),
  };
}

export function reservationView(
  store: SandboxStore,
  reservation: ReservationRecord,
  now: number,
  settled = false,
): Record<string, unknown> {
  const payments = reservation.payments.filter((p) => settled || p.visibleAt <= now);
  const totalPrice = roundMoney(invoiceTotal(reservation));
  const totalPaid = roundMoney(paidBy(payments));
  const balanceDue = roundMoney(Math.max(0, totalPrice - totalPaid));
  const guest = store.guests.get(reservation.guestId);
  const providerId = store.listingProviders.get(reservation.listingId);
  return {
    _id: reservation._id,
    confirmationCode: reservation.confirmationCode,
    status: reservation.status,
    listingId: reservation.listingId,
    guestId: reservation.guestId,
    guest: guest ? { _id: guest._id, fullName: guest.fullName, email: guest.email } : undefined,
    checkIn: reservation.checkIn,
    checkOut: reservation.checkOut,
    money: {
      currency: reservation.currency,
      totalPrice,
      totalPaid,
      balanceDue,
      isFullyPaid: balanceDue <= 0,
      paymentProviderIds: providerId === undefined ? [] : [providerId],
      invoiceItems: reservation.invoiceItems.map((item) => ({
        _id: item._id,
        title: item.title,
        amount: item.amount,
        normalType: item.normalType,
        // Absent when the item has none: the reference types it a string, never null.
        ...(item.secondIdentifier === undefined ? {} : { secondIdentifier: item.secondIdentifier }),
        isTax: item.isTax,
        ...(item.description === undefined ? {} : { description: item.description }),
        ...(item.realizationDates === undefined ? {} : { realizationDates: item.realizationDates }),
        ...(item.isUpsellFee === undefined ? {} : { isUpsellFee: item.isUpsellFee }),
        ...(item.stayIndex === undefined ? {} : { stayIndex: item.stayIndex }),
      })),
      payments: payments.map(paymentView),
    },
  };
}

/** Fixed rates for hostPayoutUsd: the sandbox's currencies only (the platform converts at its day's rate). */
export const USD_PER_UNIT: Record<string, number> = { USD: 1, EUR: 1.08, GBP: 1.27 };

function sumOf(items: ReservationRecord['invoiceItems'], keep: (item: ReservationRecord['invoiceItems'][number]) => boolean): number {
  return roundMoney(items.filter(keep).reduce((sum, item) => sum + item.amount, 0));
}

/** An invoice item's `type` for its normalType, as the reference's example pairs them (CF, CLEANING_FEE). */
function itemType(item: ReservationRecord['invoiceItems'][number]): string {
  if (item.isTax) return 'TAX';
  return item.normalType === 'AF' ? 'ACCOMMODATION_FARE' : item.normalType === 'CF' ? 'CLEANING_FEE' : 'ADDITIONAL';
}

/**
 * The money object of a Reservations V3 status answer (the reference's required fields): totals from
 * the invoice items, payments by id. Its `_id`s are objects as the reference types them (a Mongo id).
 */
export function statusAnswerMoney(reservation: ReservationRecord, now: number): Record<string, unknown> {
  const items = reservation.invoiceItems;
  const payments = reservation.payments.filter((payment) => payment.visibleAt <= now);
  const adjusted = sumOf(items, (item) => item.normalType === 'AF');
  const discount = reservation.fareAccommodationDiscount ?? 0;
  const cleaning = sumOf(items, (item) => item.normalType === 'CF');
  const taxes = sumOf(items, (item) => item.isTax);
  const subTotal = roundMoney(invoiceTotal(reservation) - taxes);
  const hostPayout = roundMoney(subTotal + taxes - ((adjusted + cleaning) * (reservation.commissionPercent ?? 0)) / 100);
  const totalPaid = roundMoney(paidBy(payments));
  const balanceDue = roundMoney(Math.max(0, invoiceTotal(reservation) - totalPaid));
  return {
    _id: { $oid: `money-${reservation._id}` },
    reservationId: reservation._id,
    currency: reservation.currency,
    invoiceItems: items.map((item) => ({
      _id: { $oid: item._id },
      title: item.title,
      amount: item.amount,
      currency: reservation.currency,
      normalType: item.normalType,
      type: itemType(item),
      // The quote's own lines are the platform's to change; items added since are the host's.
      isLocked: item.normalType === 'AF' || item.normalType === 'CF',
      isTax: item.isTax,
      ...(item.secondIdentifier === undefined ? {} : { secondIdentifier: item.secondIdentifier }),
    })),
    fareAccommodation: roundMoney(adjusted + discount),
    fareAccommodationDiscount: discount,
    fareAccommodationAdjustment: 0,
    fareAccommodationAdjusted: adjusted,
    fareCleaning: cleaning,
    // The sandbox charges hosts no service fee.
    hostServiceFee: 0,
    hostServiceFeeTax: 0,
    hostServiceFeeIncTax: 0,
    subTotalPrice: subTotal,
    totalTaxes: taxes,
    hostPayout,
    hostPayoutUsd: roundMoney(hostPayout * (USD_PER_UNIT[reservation.currency] ?? 1)),
    payments: payments.map((payment) => payment._id),
    totalRefunded: roundMoney(payments.reduce((sum, payment) => sum + refunded(payment), 0)),
    totalPaid,
    paymentsDue: balanceDue,
    balanceDue,
    isFullyPaid: balanceDue <= 0,
    settingsSnapshot: { currency: reservation.currency },
  };
}
