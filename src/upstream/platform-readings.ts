import {
  UpstreamCalendarDay,
  UpstreamGuest,
  UpstreamInvoiceItem,
  UpstreamListing,
  UpstreamPayment,
  UpstreamPaymentAttempt,
  UpstreamAttachedPaymentMethod,
  UpstreamPaymentMethod,
  UpstreamQuote,
  UpstreamRatePlanMoney,
  UpstreamReservation,
  UpstreamReservationV3,
  UpstreamReservationStatus,
  UpstreamReservationRead,
  UpstreamFolioOverviewLine,
  UpstreamFolioItems,
  UpstreamPaymentSummary,
} from './guesty.types';
import {
  CalendarDay,
  InvoiceLine,
  PaymentAttempt,
  PaymentMethodOnFile,
  PlatformGuest,
  PlatformListing,
  PlatformPayment,
  PlatformReservation,
  QuoteOffer,
  RatePlanMoney,
  ReservationHold,
  ReservationMoney,
  ReservationStatusChange,
} from './platform-results';

/*
 * The platform's answers read into GuestyClient's results (platform-results.ts): the only place that
 * knows both shapes. A field the answer leaves out stays out of the result.
 */

export function listingOf(listing: UpstreamListing): PlatformListing {
  const picture = listing.pictures?.[0];
  return {
    id: listing._id,
    title: listing.title ?? listing.nickname,
    city: listing.address?.city,
    country: listing.address?.country,
    picture: picture?.original ?? picture?.thumbnail,
    currency: listing.prices?.currency,
  };
}

/** Only the fields the answer carries: a result never holds a key set to undefined. */
function present<T extends object>(fields: T): T {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as T;
}

export function calendarDayOf(day: UpstreamCalendarDay): CalendarDay {
  const { date, currency, price, minNights, status, allotment, cta, ctd } = day;
  return present({ date, currency, price, minNights, status, allotment, closedToArrival: cta, closedToDeparture: ctd });
}

function ratePlanMoneyOf(money: UpstreamRatePlanMoney): RatePlanMoney {
  return present({
    currency: money.currency,
    accommodationFare: money.fareAccommodation,
    discountedAccommodationFare: money.fareAccommodationAdjusted,
    cleaningFee: money.fareCleaning,
    fees: money.totalFees,
    taxes: money.totalTaxes,
    subTotal: money.subTotalPrice,
    lines: money.invoiceItems,
  });
}

export function quoteOf(quote: UpstreamQuote): QuoteOffer {
  return present({
    id: quote._id,
    checkIn: quote.checkInDateLocalized,
    checkOut: quote.checkOutDateLocalized,
    expiresAt: quote.expiresAt,
    reservationId: quote.reservationId,
    coupons: quote.coupons,
    ratePlans: (quote.rates?.ratePlans ?? [])
      .map((entry) => entry.ratePlan ?? {})
      .map((plan) => present({ id: plan._id, name: plan.name, money: ratePlanMoneyOf(plan.money ?? {}) })),
  });
}

export function guestOf(guest: UpstreamGuest): PlatformGuest {
  return present({ id: guest._id, email: guest.email });
}

export function holdOf(reservation: UpstreamReservationV3): ReservationHold {
  return present({
    reservationId: reservation.reservationId,
    confirmationCode: reservation.confirmationCode,
    status: reservation.status,
    guestId: reservation.guestId,
    holdEndsAt: reservation.reservedExpiresAt,
  });
}

export function statusChangeOf(answer: UpstreamReservationStatus): ReservationStatusChange {
  return present({ reservationId: answer.reservationId, status: answer.status });
}

export function invoiceLineOf(item: UpstreamInvoiceItem): InvoiceLine {
  const { _id: id, title, amount, normalType, secondIdentifier, description, isTax } = item;
  return present({ id, title, amount, normalType, secondIdentifier, description, isTax });
}

/**
 * The reference types a payment's status free text (its examples and guides write SUCCEEDED, FAILED,
 * PENDING_AUTH): read in that form whatever case the platform answers in (docs/upstream.md).
 */
function asPublished<T extends string | undefined>(status: T): T {
  return (typeof status === 'string' ? status.toUpperCase() : status) as T;
}

function attemptOf(attempt: UpstreamPaymentAttempt): PaymentAttempt {
  const { payload } = attempt;
  return present({
    status: asPublished(attempt.status),
    at: attempt.createdAt,
    last4: payload?.payment_method?.card?.last4,
    code: payload?.code,
    declineCode: payload?.decline_code,
    message: payload?.message ?? (typeof attempt.error === 'string' ? attempt.error : undefined),
  });
}

export function paymentOf(payment: UpstreamPayment, currency?: string): PlatformPayment {
  return present({
    ...(isHold(payment) ? { hold: true as const } : {}),
    id: payment._id,
    amount: payment.amount,
    // The payments API's pages show no currency on a payment: all its amounts are in the reservation's.
    currency: payment.currency ?? currency,
    status: asPublished(payment.status),
    methodId: payment.paymentMethodId,
    createdAt: payment.createdAt,
    dueAt: payment.shouldBePaidAt,
    authenticationUrl: payment.authenticationRequiredData?.authenticationUrl,
    attempts: payment.attempts?.map(attemptOf),
  });
}

export function reservationOf(reservation: UpstreamReservation): PlatformReservation {
  const { money } = reservation;
  return present({
    id: reservation._id,
    confirmationCode: reservation.confirmationCode,
    status: reservation.status,
    listingId: reservation.listingId,
    guestId: reservation.guestId,
    guestEmail: reservation.guest?.email,
    checkIn: reservation.checkIn,
    checkOut: reservation.checkOut,
    holdEndsAt: reservation.reservedExpiresAt,
    money:
      money &&
      present({
        currency: money.currency,
        paid: money.totalPaid,
        balanceDue: money.balanceDue,
        fullyPaid: money.isFullyPaid,
        paymentProviderIds: money.paymentProviderIds,
        folio: Array.isArray(money.invoiceItems) ? money.invoiceItems.map(invoiceLineOf) : undefined,
        ...(Array.isArray(money.payments) ? paymentsApart(money.payments.map((payment) => paymentOf(payment, money.currency))) : {}),
      }),
  });
}

/** A listed method, as the product reads it (its card by cardOf). */
export function methodOnFileOf(method: UpstreamPaymentMethod): PaymentMethodOnFile {
  return present({
    id: method._id,
    guestId: method.guestId,
    paymentProviderId: method.paymentProviderId,
    reservationId: method.reservationId,
    confirmationCode: method.confirmationCode,
    status: method.status,
    createdAt: method.createdAt,
    ...cardOf(method),
  });
}

/** What an attach answer says: the method's id and its card (nothing else of it is read). */
export function attachedMethodOf(method: UpstreamAttachedPaymentMethod): PaymentMethodOnFile {
  return present({ id: method._id, ...cardOf(method) });
}

/**
 * A method's card digits and brand: at its top level, else under `payload.card`, as the published
 * production item shows them both (docs/upstream-reference/examples/guest-payment-method.json).
 */
function cardOf(method: UpstreamAttachedPaymentMethod): { last4?: string; brand?: string } {
  return { last4: method.last4 ?? method.payload?.card?.last4, brand: method.brand ?? method.payload?.card?.brand };
}

/**
 * When a `reserved` hold ends, from a Reservations V3 read: its `reservedExpiresAt` where the answer
 * carries one (no published field), else `reservedAt` plus `reservedUntil` hours; none for −1 (no limit).
 */
export function holdEndOf(read: UpstreamReservationRead): string | undefined {
  if (typeof read.reservedExpiresAt === 'string') return read.reservedExpiresAt;
  const hours = typeof read.reservedUntil === 'string' ? Number(read.reservedUntil) : read.reservedUntil;
  const from = read.reservedAt === undefined ? NaN : Date.parse(read.reservedAt);
  if (typeof hours !== 'number' || !Number.isFinite(hours) || hours <= 0 || Number.isNaN(from)) return undefined;
  return new Date(from + hours * 3_600_000).toISOString();
}

/** A Reservations V3 read, with what other reads of the current surface added (the guest's email, the money). */
export function reservationFromRead(
  read: UpstreamReservationRead,
  more: { guestEmail?: string; money?: ReservationMoney },
): PlatformReservation {
  const stay = read.stay?.[0];
  return present({
    id: read._id,
    confirmationCode: read.confirmationCode,
    status: read.status,
    listingId: read.listingId ?? stay?.unitTypeId ?? stay?.unitId ?? '',
    guestId: read.bookerId ?? '',
    guestEmail: more.guestEmail,
    checkIn: stay?.checkInDateLocalized,
    checkOut: stay?.checkOutDateLocalized,
    holdEndsAt: holdEndOf(read),
    money: more.money,
  });
}

function cents(amount: number): number {
  return Math.round(amount * 100) / 100;
}

/** Money held, never paid: an authorization hold, or a security deposit (a hold too, the create page says). */
function isHold(payment: UpstreamPayment): boolean {
  return payment.isAuthorizationHold === true || payment.isSecurityDeposit === true;
}

/** A reservation's payments, its holds apart: a hold's capture is a payment of its own, so a hold never counts. */
function paymentsApart(read: PlatformPayment[]): Pick<ReservationMoney, 'payments' | 'holds'> {
  const holds = read.filter((payment) => payment.hold);
  return { payments: read.filter((payment) => !payment.hold), ...(holds.length > 0 ? { holds } : {}) };
}

/** The payment statuses the product knows; a payment in another says nothing the product may count. */
const PAYMENT_STATUSES = ['SUCCEEDED', 'PENDING', 'PENDING_AUTH', 'FAILED', 'CANCELED', 'CANCELLED'];
/** A refund is money back once SUCCEEDED; PROCESSING and PENDING are on their way; the rest never will be. */
const REFUND_STATUSES = { SUCCEEDED: true, PROCESSING: false, PENDING: false, FAILED: false, CANCELED: false, CANCELLED: false };

function isAmount(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** What a succeeded payment's refunds gave back, or why it cannot be told. */
function refundedOf(payment: UpstreamPayment, unreadable: string[]): number {
  if (payment.refunds === undefined || payment.refunds === null) return 0;
  if (!Array.isArray(payment.refunds)) {
    unreadable.push(`payment ${payment._id}: refunds is not a list`);
    return 0;
  }
  let back = 0;
  for (const refund of payment.refunds) {
    const status = asPublished(refund?.status);
    const settled = typeof status === 'string' ? (REFUND_STATUSES as Record<string, boolean | undefined>)[status] : undefined;
    if (settled === undefined) unreadable.push(`payment ${payment._id}: a refund with status ${String(status)}`);
    else if (settled && !isAmount(refund.amount)) unreadable.push(`payment ${payment._id}: a succeeded refund without an amount`);
    else if (settled) back += refund.amount as number;
  }
  return back;
}

/** The succeeded payments less their succeeded refunds, holds left out; what cannot be read is named, never guessed. */
function countedPaid(payments: UpstreamPayment[], unreadable: string[]): number {
  let paid = 0;
  for (const payment of payments) {
    if (isHold(payment)) continue;
    const status = asPublished(payment.status);
    if (typeof status !== 'string' || !PAYMENT_STATUSES.includes(status)) {
      unreadable.push(`payment ${payment._id}: status ${String(status)}`);
    } else if (status !== 'SUCCEEDED') {
      continue;
    } else if (!isAmount(payment.amount)) {
      unreadable.push(`payment ${payment._id}: succeeded without an amount`);
    } else {
      paid += payment.amount - refundedOf(payment, unreadable);
    }
  }
  return cents(paid);
}

/** The payments list's summary fields, where the answer is an object carrying them (names inferred). */
export function paymentSummaryOf(data: unknown): PaymentSummary {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return {};
  const { totalPaid, balanceDue } = data as UpstreamPaymentSummary;
  return present({ paid: isAmount(totalPaid) ? totalPaid : undefined, balanceDue: isAmount(balanceDue) ? balanceDue : undefined });
}

/** The platform's own totals of a reservation's payments, in the product's words. */
export interface PaymentSummary {
  paid?: number;
  balanceDue?: number;
}

/** A reservation's payments as its list answered them: the items, and the summary fields where it carried some. */
export interface PaymentsListed {
  payments: UpstreamPayment[];
  summary?: PaymentSummary;
}

/** Where the platform's summary and the product's count differ: both figures, for the operator. */
export interface MoneyDisagreement {
  figure: 'paid' | 'balanceDue';
  platform: number;
  counted: number;
}

/** Something the product needed of an answer and could not read: which answer, and what (ids and field names, no secret). */
export interface Unreadable {
  answer: 'payments' | 'overview';
  what: string;
}

/** A reservation's money, with what the product needed and could not read (GuestyClient fails loud on it) and any disagreement. */
export interface MoneyReading {
  money: ReservationMoney;
  unreadable: Unreadable[];
  disagreements: MoneyDisagreement[];
}

/**
 * A reservation's money on the current surface (docs/product-spec.md §3.2): the guest's total is the
 * overview's `hostPayout` (docs/upstream.md); paid is the succeeded payments less their succeeded
 * refunds, holds never counted. The list's summary fields, where present, win over the count.
 */
export function moneyOf(line: UpstreamFolioOverviewLine | undefined, listed: PaymentsListed | undefined): MoneyReading {
  const currency = line?.currency;
  const unreadable: Unreadable[] = [];
  const totalMissing: string[] = [];
  if (line && !isAmount(line.hostPayout)) totalMissing.push('the folio overview without hostPayout');
  if (line && typeof currency !== 'string') totalMissing.push('the folio overview without currency');
  const total = line && isAmount(line.hostPayout) ? cents(line.hostPayout) : undefined;
  const summary = listed?.summary ?? {};
  const countProblems: string[] = [];
  const counted = listed ? countedPaid(listed.payments, countProblems) : undefined;
  const paid = summary.paid ?? (countProblems.length > 0 ? undefined : counted);
  if (summary.paid === undefined) unreadable.push(...countProblems.map((what) => ({ answer: 'payments' as const, what })));
  const owed = (figure: number | undefined) =>
    total !== undefined && figure !== undefined ? cents(Math.max(0, total - figure)) : undefined;
  const balanceDue = summary.balanceDue ?? owed(paid);
  if (summary.balanceDue === undefined) unreadable.push(...totalMissing.map((what) => ({ answer: 'overview' as const, what })));
  const disagreements: MoneyDisagreement[] = [];
  if (counted !== undefined && countProblems.length === 0) {
    if (summary.paid !== undefined && Math.abs(summary.paid - counted) >= 0.01)
      disagreements.push({ figure: 'paid', platform: summary.paid, counted });
    const countedDue = owed(counted);
    if (summary.balanceDue !== undefined && countedDue !== undefined && Math.abs(summary.balanceDue - countedDue) >= 0.01)
      disagreements.push({ figure: 'balanceDue', platform: summary.balanceDue, counted: countedDue });
  }
  const read = listed?.payments.map((payment) => paymentOf(payment, currency));
  const money = present({
    currency,
    paid,
    balanceDue,
    fullyPaid: balanceDue === undefined ? undefined : balanceDue <= 0,
    ...(read ? paymentsApart(read) : {}),
  });
  return { money, unreadable, disagreements };
}

/** A reservation's folio lines, as `GET /guest-folio/invoice-items` answers them. */
export function folioLinesOf(folio: UpstreamFolioItems | undefined): InvoiceLine[] {
  return (folio?.invoiceItems ?? []).flatMap((item) =>
    typeof item.title === 'string' && typeof item.normalType === 'string'
      ? [
          present({
            id: item.id ?? item._id,
            title: item.title,
            amount: item.amount ?? item.totalPrice ?? 0,
            normalType: item.normalType,
            secondIdentifier: item.secondIdentifier,
            isTax: item.isTax,
          }),
        ]
      : [],
  );
}

/** The payment methods a reservation's payments and holds charge, once each (the legacy read names them on each payment). */
export function methodsPaying(money: ReservationMoney | undefined): string[] {
  const all = [...(money?.payments ?? []), ...(money?.holds ?? [])];
  return [...new Set(all.flatMap((payment) => (payment.methodId ? [payment.methodId] : [])))];
}
