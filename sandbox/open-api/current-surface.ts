/**
 * The platform's current surface for what the legacy reservation read answered in one call
 * (docs/upstream.md, "The surface of 2027"): Reservations V3 (no money, no guest, no listingId, no
 * hold end), the guest, the guest folio (its overview and its items) and the payments list. Where
 * the platform leaves a shape open (a bare array or `{results}`), the readings choose.
 */
import { jsonAnswer, type SandboxAnswer } from '../http/answer';
import { invalidParameters, notFound } from '../http/errors';
import type { RequestContext } from '../http/host-server';
import { expireHolds, holdOf } from '../state/booking-state';
import { folioTotals, paymentSummary, paymentView, roundMoney, USD_PER_UNIT } from '../state/money';
import type { ReservationRecord } from '../state/records';
import { lowerPaymentStatuses } from './reservations';

/** The reference's `reservedUntil` hours for the holds the sandbox grants (its enum: −1, 0.17 … 72). */
const HOLD_HOURS: [number, number][] = [
  [10 * 60_000, 0.17],
  [15 * 60_000, 0.25],
  [30 * 60_000, 0.5],
];

function holdHours(ms: number): number {
  if (!Number.isFinite(ms)) return -1;
  return HOLD_HOURS.find(([length]) => length === ms)?.[1] ?? Math.round(ms / 3_600_000);
}

/** A list as the platform answers it under the readings: bare, or wrapped in `{results}`. */
export function listAnswer(ctx: RequestContext, items: unknown[]): SandboxAnswer {
  return jsonAnswer(200, ctx.runtime.readings.listWrapper === 'results' ? { results: items } : items);
}

/** Every value of an array query parameter, sent as `name[]=`, repeated, or one comma-separated value. */
export function arrayParameter(ctx: RequestContext, name: string): string[] {
  const given = [...ctx.url.searchParams.getAll(`${name}[]`), ...ctx.url.searchParams.getAll(name)];
  return given.flatMap((value) => value.split(',')).filter((value) => value !== '');
}

/** A reservation in the reference's Reservations V3 read schema: its required fields, its stay, its hold. */
export function reservationV3View(ctx: RequestContext, reservation: ReservationRecord): Record<string, unknown> {
  const createdAt = new Date(reservation.createdAt ?? 0).toISOString();
  const until = holdOf(ctx.runtime.store, reservation._id, ctx.now);
  const guestsCount = reservation.guestsCount ?? 1;
  return {
    _id: reservation._id,
    accountId: ctx.runtime.store.currentProviderOf(reservation.listingId)?.accountId ?? 'sandbox-account',
    platform: 'direct',
    source: reservation.source ?? 'website',
    quoteId: `quote-of-${reservation._id}`,
    createdAt,
    status: reservation.status,
    confirmationCode: reservation.confirmationCode,
    bookerId: reservation.guestId,
    notes: {},
    stay: [
      {
        checkInDateLocalized: reservation.checkIn.slice(0, 10),
        checkOutDateLocalized: reservation.checkOut.slice(0, 10),
        unitTypeId: reservation.listingId,
        unitId: reservation.listingId,
        guestsCount,
        numberOfGuests: { numberOfAdults: guestsCount },
        eta: reservation.checkIn,
        etd: reservation.checkOut,
      },
    ],
    ...(until !== undefined && reservation.status === 'reserved'
      ? { reservedAt: createdAt, reservedUntil: holdHours(until - (reservation.createdAt ?? 0)) }
      : {}),
  };
}

/** GET /v1/reservations-v3?reservationIds[]=…: at most 10; an unknown id simply yields no element. */
export function getReservationsV3(ctx: RequestContext): SandboxAnswer {
  const { store } = ctx.runtime;
  expireHolds(store, ctx.now);
  const ids = arrayParameter(ctx, 'reservationIds');
  if (ids.length === 0) throw invalidParameters([{ field: 'reservationIds', message: 'is required' }]);
  if (ids.length > 10) throw invalidParameters([{ field: 'reservationIds', message: 'must NOT have more than 10 items' }]);
  const hidden = ctx.runtime.readings.reservationsV3Misses;
  const found = ids.flatMap((id) => {
    const reservation = store.reservations.get(id);
    return reservation && !hidden.includes(id) ? [reservationV3View(ctx, reservation)] : [];
  });
  return listAnswer(ctx, found);
}

/**
 * GET /v1/guests-crud/{guestId}?fields=…: `fields` required (the reference). The email (asked as
 * `email` or `guestEmail`) comes under the readings' name, and not at all when only the list has it.
 */
export function getGuest(ctx: RequestContext): SandboxAnswer {
  const fields = ctx.url.searchParams.get('fields');
  if (!fields) throw invalidParameters([{ field: 'fields', message: 'is required' }]);
  const guest = ctx.runtime.store.guests.get(ctx.params.guestId);
  if (!guest) throw notFound(`Guest ${ctx.params.guestId} not found`);
  const { guestEmailIn, guestEmailField } = ctx.runtime.readings;
  const [firstName, ...rest] = guest.fullName.split(' ');
  const whole: Record<string, unknown> = {
    _id: guest._id,
    firstName,
    lastName: rest.join(' '),
    fullName: guest.fullName,
    returningGuest: false,
  };
  const wanted = new Set(fields.split(/[\s,]+/));
  const email = guestEmailIn === 'single' && (wanted.has('email') || wanted.has('guestEmail')) ? { [guestEmailField]: guest.email } : {};
  const emails = guestEmailIn === 'single' && wanted.has('emails') ? { emails: [guest.email] } : {};
  // The reference's schema requires these whatever `fields` asks.
  const always = ['_id', 'firstName', 'lastName', 'returningGuest'];
  return jsonAnswer(200, {
    ...Object.fromEntries(Object.entries(whole).filter(([name]) => always.includes(name) || wanted.has(name))),
    ...email,
    ...emails,
  });
}

/**
 * The overview's field names the platform publishes (its reference page and example; `reservationId`
 * always comes): under the reading `published`, any other name is refused 400, naming it.
 */
const PUBLISHED_OVERVIEW_FIELDS = [
  'reservationId',
  'hostPayout',
  'totalTaxes',
  'currency',
  'hostPayoutUsd',
  'bundledFees.title',
  'perStayTotals.hostPayout',
];

/** The names public third-party code sends the live endpoint (docs/upstream.md, inferred), accepted under the reading `seen`. */
const SEEN_OVERVIEW_FIELDS = [
  ...PUBLISHED_OVERVIEW_FIELDS,
  'listingId',
  'platform',
  'source',
  'updatedAt',
  'canceledAt',
  'rawAccommodationFare',
  'accommodationFareNet',
  'accommodationFareIncTax',
  'totalBundledFees',
  'rawCleaningFee',
  'cleaningFeeIncTax',
  'totalFees',
  'totalFeesIncTax',
  'guestFeeBase',
  'guestFeeVat',
  'channelCommission',
  'channelCommissionTax',
  'channelCommissionIncTax',
  'subTotalPrice',
  'hostOriginalPayout',
];

/** GET /v1/guest-folio/overview?reservationIds=a,b&fields=f1,f2: always 200, the unknown ids in `notFound`. */
export function getFolioOverview(ctx: RequestContext): SandboxAnswer {
  const ids = arrayParameter(ctx, 'reservationIds');
  const fields = arrayParameter(ctx, 'fields');
  if (ids.length === 0 || ids.length > 200) throw invalidParameters([{ field: 'reservationIds', message: 'must name 1 to 200 ids' }]);
  const known = ctx.runtime.readings.overviewFields === 'seen' ? SEEN_OVERVIEW_FIELDS : PUBLISHED_OVERVIEW_FIELDS;
  const unknown = fields.filter((field) => !known.includes(field));
  if (fields.length === 0 || unknown.length > 0) {
    throw invalidParameters([
      { field: 'fields', message: `must be among the overview's fields (unknown: ${unknown.join(', ') || 'none given'})` },
    ]);
  }
  const results: Record<string, unknown>[] = [];
  const notFound: string[] = [];
  for (const id of ids) {
    const reservation = ctx.runtime.store.reservations.get(id);
    if (!reservation) {
      notFound.push(id);
      continue;
    }
    const totals = folioTotals(reservation);
    // A direct booking, no channel commission: the host's payout is what the guest pays (the published quote example's case).
    const hostPayout = roundMoney(totals.subTotalPrice + totals.totalTaxes);
    const whole: Record<string, unknown> = {
      currency: reservation.currency,
      ...totals,
      hostPayout,
      hostPayoutUsd: roundMoney(hostPayout * (USD_PER_UNIT[reservation.currency] ?? 1)),
      listingId: reservation.listingId,
      source: reservation.source ?? 'website',
      platform: 'direct',
      updatedAt: new Date(ctx.now).toISOString(),
    };
    // A field with no stored value is left out, as the platform's folio answers do.
    const asked = fields.filter((field) => whole[field] !== undefined);
    results.push({ reservationId: id, ...Object.fromEntries(asked.map((field) => [field, whole[field]])) });
  }
  return jsonAnswer(200, { results, notFound });
}

/** GET /v1/guest-folio/invoice-items?reservationIds=…&fields=…: each reservation's items, `id` always. */
export function getFolioInvoiceItems(ctx: RequestContext): SandboxAnswer {
  const ids = arrayParameter(ctx, 'reservationIds');
  if (ids.length === 0 || ids.length > 200) throw invalidParameters([{ field: 'reservationIds', message: 'must name 1 to 200 ids' }]);
  const results = ids.flatMap((id) => {
    const reservation = ctx.runtime.store.reservations.get(id);
    if (!reservation) return [];
    return [
      {
        reservationId: id,
        currency: reservation.currency,
        invoiceItems: reservation.invoiceItems.map((item) => ({
          id: item._id,
          title: item.title,
          normalType: item.normalType,
          totalPrice: item.amount,
          ...(item.secondIdentifier === undefined ? {} : { secondIdentifier: item.secondIdentifier }),
        })),
      },
    ];
  });
  return jsonAnswer(200, { results });
}

/**
 * GET /v1/payments?reservationId=…: every payment the platform shows on it (visible ones: it catches
 * up late), holds and their captures included; with the summary fields beside them under `paymentSummary`.
 */
export function listPayments(ctx: RequestContext): SandboxAnswer {
  const reservationId = ctx.url.searchParams.get('reservationId');
  if (!reservationId) throw invalidParameters([{ field: 'reservationId', message: 'is required' }]);
  const reservation = ctx.runtime.store.reservations.get(reservationId);
  if (!reservation) throw notFound(`Reservation ${reservationId} not found`);
  const payments = reservation.payments.filter((payment) => payment.visibleAt <= ctx.now).map(paymentView);
  if (ctx.runtime.readings.paymentStatusCase === 'lower') lowerPaymentStatuses(payments);
  if (ctx.runtime.readings.paymentSummary === 'present')
    return jsonAnswer(200, { results: payments, ...paymentSummary(reservation, ctx.now) });
  return listAnswer(ctx, payments);
}
