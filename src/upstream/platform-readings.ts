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
        payments: Array.isArray(money.payments) ? money.payments.map((payment) => paymentOf(payment, money.currency)) : undefined,
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

/**
 * A reservation's money on the current surface: the folio's total (its subtotal and taxes, from the
 * overview) less the payments that succeeded (docs/product-spec.md §3.2). A `balanceDue` or `totalPaid`
 * the overview carries is the platform's own word and wins; nothing published names them.
 */
export function moneyOf(line: UpstreamFolioOverviewLine | undefined, payments: UpstreamPayment[] | undefined): ReservationMoney {
  const currency = line?.currency;
  const read = payments?.map((payment) => paymentOf(payment, currency));
  const succeeded = read?.filter((payment) => payment.status === 'SUCCEEDED' && typeof payment.amount === 'number');
  const paid =
    typeof line?.totalPaid === 'number' ? line.totalPaid : succeeded && cents(succeeded.reduce((sum, payment) => sum + payment.amount, 0));
  const total =
    typeof line?.subTotalPrice === 'number'
      ? cents(line.subTotalPrice + (typeof line.totalTaxes === 'number' ? line.totalTaxes : 0))
      : undefined;
  const balanceDue =
    typeof line?.balanceDue === 'number'
      ? line.balanceDue
      : total !== undefined && paid !== undefined
        ? cents(Math.max(0, total - paid))
        : undefined;
  return present({ currency, paid, balanceDue, fullyPaid: balanceDue === undefined ? undefined : balanceDue <= 0, payments: read });
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

/** The payment methods a reservation's payments charge, once each (the legacy read names them on each payment). */
export function methodsPaying(money: ReservationMoney | undefined): string[] {
  return [...new Set((money?.payments ?? []).flatMap((payment) => (payment.methodId ? [payment.methodId] : [])))];
}
