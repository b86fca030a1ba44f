/**
 * The booking routes of the Open API (Reservations V3, marked beta upstream): the calendar, quotes,
 * guests (merged by email) and reservations made from quotes, with their status changes.
 * Refusals for dates or terms answer 401 as the reference names it (docs/upstream.md "Booking"),
 * with a message that says why: the service must read them as booking answers, not token problems.
 */
import { jsonAnswer, type SandboxAnswer } from '../http/answer';
import { parseJsonObject } from '../http/body';
import { badRequest, invalidParameters, notFound, UpstreamRefusal, type FieldProblem } from '../http/errors';
import type { RequestContext } from '../http/host-server';
import {
  bookingState,
  calendarDays,
  dayMs,
  expireHolds,
  holdsNights,
  nightsBetween,
  QUOTE_VALIDITY_MS,
  ratePlansFor,
  SANDBOX_COUPON,
  stayRefusal,
  type QuoteRecord,
} from '../state/booking-state';
import { roundMoney, statusAnswerMoney } from '../state/money';
import type { ReservationRecord } from '../state/records';
import { newId, newRequestId } from '../state/store';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const MINUTE = 60_000;
/** The reference's `reservedUntil` enum: fractions of an hour, named periods, or -1 for no limit. */
const RESERVED_UNTIL_MS: Record<string, number> = {
  '0.17': 10 * MINUTE,
  '0.25': 15 * MINUTE,
  '0.5': 30 * MINUTE,
  twelveHours: 12 * 60 * MINUTE,
  day: 24 * 60 * MINUTE,
  thirtySixHours: 36 * 60 * MINUTE,
  twoDays: 48 * 60 * MINUTE,
  threeDays: 72 * 60 * MINUTE,
  '-1': Number.POSITIVE_INFINITY,
};
const STATUSES = ['inquiry', 'reserved', 'confirmed', 'canceled', 'declined', 'closed'];
/** Statuses a reservation ended in: no status change takes it back (the sandbox's reading; nothing published says). */
const ENDED = ['expired', 'canceled', 'declined', 'closed'];

function isDate(value: unknown): value is string {
  return (
    typeof value === 'string' && DATE.test(value) && !Number.isNaN(dayMs(value)) && new Date(dayMs(value)).toISOString().startsWith(value)
  );
}

/** A refusal of the dates or the stay's terms, answered 401 like the reference says (not a token problem). */
function declined(refusal: { code: string; message: string }): UpstreamRefusal {
  return new UpstreamRefusal(401, { message: refusal.message, code: refusal.code });
}

export function getCalendar(ctx: RequestContext): SandboxAnswer {
  const { store } = ctx.runtime;
  const listing = store.listings.get(ctx.params.id);
  // The reference's calendar 404: {message, code, data, requestId}.
  if (!listing) {
    throw new UpstreamRefusal(404, {
      message: 'Listing not found',
      code: 'LISTING_NOT_FOUND',
      data: { listingId: ctx.params.id },
      requestId: newRequestId(),
    });
  }
  const startDate = ctx.url.searchParams.get('startDate');
  const endDate = ctx.url.searchParams.get('endDate');
  const problems: FieldProblem[] = [];
  if (!isDate(startDate)) problems.push({ field: 'startDate', message: 'must be a date (YYYY-MM-DD)' });
  if (!isDate(endDate)) problems.push({ field: 'endDate', message: 'must be a date (YYYY-MM-DD)' });
  if (problems.length === 0 && (endDate as string) < (startDate as string))
    problems.push({ field: 'endDate', message: 'must not be before startDate' });
  if (problems.length === 0 && nightsBetween(startDate as string, endDate as string) > 731)
    problems.push({ field: 'endDate', message: 'at most two years at once' });
  if (problems.length > 0) throw invalidParameters(problems);
  expireHolds(store, ctx.now);
  const days = calendarDays(store, listing, startDate as string, endDate as string, ctx.now);
  // Like the platform, the allotment of a multi-unit listing's days only when asked for.
  const withAllotment = ctx.url.searchParams.get('includeAllotment') === 'true';
  return jsonAnswer(200, { status: 200, data: { days: withAllotment ? days : days.map(({ allotment: _allotment, ...day }) => day) } });
}

function quoteView(quote: QuoteRecord, accountId: string | undefined): Record<string, unknown> {
  return {
    _id: quote._id,
    // The reference's required fields: the account, and the listing as the unit type it books.
    accountId,
    unitTypeId: quote.listingId,
    status: 'valid',
    listingId: quote.listingId,
    checkInDateLocalized: quote.checkIn,
    checkOutDateLocalized: quote.checkOut,
    guestsCount: quote.guestsCount,
    source: quote.source,
    channel: 'manual_reservations',
    createdAt: new Date(quote.createdAt).toISOString(),
    expiresAt: new Date(quote.expiresAt).toISOString(),
    coupons: quote.couponCode ? [{ code: quote.couponCode, discountPercent: SANDBOX_COUPON.percentOff }] : [],
    promotions: {},
    rates: { ratePlans: quote.ratePlans.map((plan) => ({ ratePlan: structuredClone(plan) })) },
    ...(quote.reservationId ? { reservationId: quote.reservationId } : {}),
  };
}

export function createQuote(ctx: RequestContext): SandboxAnswer {
  const { store } = ctx.runtime;
  const body = parseJsonObject(ctx.headers['content-type'], ctx.rawBody);
  const { listingId, checkInDateLocalized: checkIn, checkOutDateLocalized: checkOut, guestsCount, source, couponCode } = body;
  const problems: FieldProblem[] = [];
  if (typeof listingId !== 'string' || listingId === '') problems.push({ field: 'listingId', message: 'is required' });
  if (!isDate(checkIn)) problems.push({ field: 'checkInDateLocalized', message: 'must be a date (YYYY-MM-DD)' });
  if (!isDate(checkOut)) problems.push({ field: 'checkOutDateLocalized', message: 'must be a date (YYYY-MM-DD)' });
  if (typeof guestsCount !== 'number' || !Number.isInteger(guestsCount) || guestsCount < 1)
    problems.push({ field: 'guestsCount', message: 'must be at least 1' });
  if (typeof source !== 'string' || source === '') problems.push({ field: 'source', message: 'is required' });
  if (couponCode !== undefined && typeof couponCode !== 'string') problems.push({ field: 'couponCode', message: 'must be a string' });
  if (problems.length === 0 && (checkOut as string) <= (checkIn as string))
    problems.push({ field: 'checkOutDateLocalized', message: 'must be after the check-in date' });
  if (problems.length > 0) throw invalidParameters(problems);
  const listing = store.listings.get(listingId as string);
  if (!listing) throw notFound(`Listing ${String(listingId)} not found`);
  expireHolds(store, ctx.now);
  const stay = { checkIn: checkIn as string, checkOut: checkOut as string, guestsCount: guestsCount as number };
  const refusal = stayRefusal(store, listing, stay, ctx.now);
  if (refusal) throw declined(refusal);
  // An unknown coupon is ignored, as a booking site's typo should not cost the guest the quote.
  const couponApplies = typeof couponCode === 'string' && couponCode.trim().toUpperCase() === SANDBOX_COUPON.code;
  const quote: QuoteRecord = {
    _id: newId('quote-'),
    listingId: listing._id,
    ...stay,
    source: source as string,
    ...(couponApplies ? { couponCode: SANDBOX_COUPON.code } : {}),
    ratePlans: ratePlansFor(store, listing, stay, couponApplies, ctx.now),
    createdAt: ctx.now,
    expiresAt: ctx.now + QUOTE_VALIDITY_MS,
  };
  bookingState(store, ctx.now).quotes.set(quote._id, quote);
  return jsonAnswer(201, quoteView(quote, store.currentProviderOf(quote.listingId)?.accountId));
}

function liveQuote(ctx: RequestContext, quoteId: string): QuoteRecord {
  const quote = bookingState(ctx.runtime.store, ctx.now).quotes.get(quoteId);
  if (!quote) throw notFound(`Quote ${quoteId} not found`);
  if (quote.expiresAt <= ctx.now)
    throw new UpstreamRefusal(410, { message: 'Quote is expired, please create a new quote.', code: 'QUOTE_EXPIRED' });
  return quote;
}

export function getQuote(ctx: RequestContext): SandboxAnswer {
  const quote = liveQuote(ctx, ctx.params.id);
  return jsonAnswer(200, quoteView(quote, ctx.runtime.store.currentProviderOf(quote.listingId)?.accountId));
}

/** Guests are merged by email (unless the sandbox is told otherwise): the same email answers the same guest, `returningGuest: true`. */
export function createGuest(ctx: RequestContext): SandboxAnswer {
  const { store } = ctx.runtime;
  const body = parseJsonObject(ctx.headers['content-type'], ctx.rawBody);
  const { firstName, lastName, email, phone } = body;
  const problems: FieldProblem[] = [];
  if (typeof firstName !== 'string' || firstName.trim() === '') problems.push({ field: 'firstName', message: 'is required' });
  if (typeof lastName !== 'string' || lastName.trim() === '') problems.push({ field: 'lastName', message: 'is required' });
  if (typeof email !== 'string' || !/^[^@\s]+@[^@\s]+$/.test(email)) problems.push({ field: 'email', message: 'must be an email address' });
  if (phone !== undefined && typeof phone !== 'string') problems.push({ field: 'phone', message: 'must be a string' });
  if (problems.length > 0) throw invalidParameters(problems);
  const wanted = (email as string).trim().toLowerCase();
  const returning = [...store.guests.values()].some((guest) => guest.email.toLowerCase() === wanted);
  const guest = store.guestByEmail(
    email as string,
    `${(firstName as string).trim()} ${(lastName as string).trim()}`,
    ctx.runtime.options.mergeGuestsByEmail,
  );
  return jsonAnswer(200, {
    _id: guest._id,
    firstName: (firstName as string).trim(),
    lastName: (lastName as string).trim(),
    fullName: guest.fullName,
    email: guest.email,
    ...(typeof phone === 'string' ? { phone } : {}),
    returningGuest: returning,
  });
}

/**
 * `GET /v1/guests-crud?columns=…&filters=…`: `columns` is required (the reference); `filters` is read
 * in the form of the reference's example (`{"field": {"@in": [values]}}`), on `email` (or
 * `guestEmail`) and `_id`; the answer is `{results, total}` with `_id` and the columns asked for.
 */
export function listGuests(ctx: RequestContext): SandboxAnswer {
  const columns = ctx.url.searchParams.get('columns');
  if (!columns) throw invalidParameters([{ field: 'columns', message: 'is required' }]);
  let wanted: string[] | undefined;
  let ids: string[] | undefined;
  const filters = ctx.url.searchParams.get('filters');
  if (filters) {
    type In = { '@in'?: unknown };
    let parsed: { email?: In; guestEmail?: In; _id?: In };
    try {
      parsed = JSON.parse(filters) as typeof parsed;
    } catch {
      throw invalidParameters([{ field: 'filters', message: 'must be a JSON object' }]);
    }
    const values = (parsed.email ?? parsed.guestEmail)?.['@in'];
    if (Array.isArray(values)) wanted = values.map((value) => String(value).trim().toLowerCase());
    const byId = parsed._id?.['@in'];
    if (Array.isArray(byId)) ids = byId.map(String);
  }
  const limit = Number(ctx.url.searchParams.get('limit') ?? 25);
  const skip = Number(ctx.url.searchParams.get('skip') ?? 0);
  const all = [...ctx.runtime.store.guests.values()].filter(
    (guest) => (!wanted || wanted.includes(guest.email.toLowerCase())) && (!ids || ids.includes(guest._id)),
  );
  const shown = new Set(columns.split(' '));
  // The guide's column is `guestEmail`; the answer names it as the readings say (its key is not published).
  const emailKey = ctx.runtime.readings.guestEmailField;
  const results = all.slice(skip, skip + limit).map((guest) => ({
    _id: guest._id,
    ...(shown.has('email') || shown.has('guestEmail') ? { [emailKey]: guest.email } : {}),
    ...(shown.has('fullName') ? { fullName: guest.fullName } : {}),
  }));
  return jsonAnswer(200, { results, total: all.length });
}

/**
 * The Reservations V3 create answer, every field its reference schema requires: the dates as the
 * date-times the platform stores, the localized dates beside them, one unit (the sandbox's listings
 * are their own unit type).
 */
function reservationAnswer(reservation: ReservationRecord, heldUntil: number | undefined, quoteId: string): Record<string, unknown> {
  const guestsCount = reservation.guestsCount ?? 1;
  return {
    reservationId: reservation._id,
    quoteId,
    confirmationCode: reservation.confirmationCode,
    status: reservation.status,
    guestId: reservation.guestId,
    listingId: reservation.listingId,
    numberOfGuests: { numberOfAdults: guestsCount, numberOfChildren: 0, numberOfInfants: 0, numberOfPets: 0 },
    guestsCount,
    creationTime: new Date(reservation.createdAt ?? 0).toISOString(),
    checkInDate: reservation.checkIn,
    checkOutDate: reservation.checkOut,
    checkInDateLocalized: reservation.checkIn.slice(0, 10),
    checkOutDateLocalized: reservation.checkOut.slice(0, 10),
    unitTypeId: reservation.listingId,
    unitId: reservation.listingId,
    source: reservation.source ?? 'website',
    channel: 'direct',
    creationInfo: { source: reservation.source ?? 'website', createdAt: new Date(reservation.createdAt ?? 0).toISOString() },
    ...(heldUntil !== undefined && Number.isFinite(heldUntil) ? { reservedExpiresAt: new Date(heldUntil).toISOString() } : {}),
  };
}

/** POST /v1/reservations-v3/quote: one reservation per quote; the dates are checked again. */
export function createReservationFromQuote(ctx: RequestContext): SandboxAnswer {
  const { store } = ctx.runtime;
  const body = parseJsonObject(ctx.headers['content-type'], ctx.rawBody);
  const { quoteId, status, ratePlanId, reservedUntil, guestId } = body;
  const problems: FieldProblem[] = [];
  if (typeof quoteId !== 'string' || quoteId === '') problems.push({ field: 'quoteId', message: 'is required' });
  if (status !== 'inquiry' && status !== 'reserved' && status !== 'confirmed')
    problems.push({ field: 'status', message: 'must be inquiry, reserved or confirmed' });
  // The reference types reservedUntil `string` (its example "-1"): a JSON number is refused as it would be.
  const hold = typeof reservedUntil === 'string' ? reservedUntil : reservedUntil === undefined ? '-1' : 'invalid';
  if (!(hold in RESERVED_UNTIL_MS))
    problems.push({ field: 'reservedUntil', message: `must be a string, one of ${Object.keys(RESERVED_UNTIL_MS).join(', ')}` });
  if (typeof guestId !== 'string' || guestId === '') problems.push({ field: 'guestId', message: 'is required (create the guest first)' });
  if (ratePlanId !== undefined && typeof ratePlanId !== 'string') problems.push({ field: 'ratePlanId', message: 'must be a string' });
  if (problems.length > 0) throw invalidParameters(problems);
  const quote = liveQuote(ctx, quoteId as string);
  if (quote.reservationId) throw badRequest(`A reservation was already created from quote ${quote._id}`, 'QUOTE_ALREADY_USED');
  const plan = ratePlanId === undefined ? quote.ratePlans[0] : quote.ratePlans.find((candidate) => candidate._id === ratePlanId);
  if (!plan) throw invalidParameters([{ field: 'ratePlanId', message: 'is not a rate plan of this quote' }]);
  const guest = store.guests.get(guestId as string);
  if (!guest) throw notFound(`Guest ${String(guestId)} not found`);
  const listing = store.listings.get(quote.listingId);
  if (!listing) throw notFound(`Listing ${quote.listingId} not found`);
  expireHolds(store, ctx.now);
  const refusal = stayRefusal(store, listing, quote, ctx.now);
  if (refusal) throw declined(refusal);
  const id = newId('res-');
  const reservation: ReservationRecord = {
    _id: id,
    confirmationCode: `SBX-${id.slice(-6).toUpperCase()}`,
    status: status as string,
    listingId: listing._id,
    guestId: guest._id,
    checkIn: `${quote.checkIn}T15:00:00.000Z`,
    checkOut: `${quote.checkOut}T15:00:00.000Z`,
    currency: plan.money.currency,
    invoiceItems: plan.money.invoiceItems.map((item) => ({ _id: newId('ii_'), ...item, amount: roundMoney(item.amount) })),
    payments: [],
    fareAccommodationDiscount: plan.money.fareAccommodationDiscount,
    commissionPercent: bookingState(store, ctx.now).commissionPercent,
    guestsCount: quote.guestsCount,
    source: quote.source,
    createdAt: ctx.now,
  };
  store.reservations.set(id, reservation);
  quote.reservationId = id;
  const holdMs = status === 'reserved' ? RESERVED_UNTIL_MS[hold] : Number.POSITIVE_INFINITY;
  const heldUntil = Number.isFinite(holdMs) ? ctx.now + holdMs : undefined;
  if (heldUntil !== undefined) bookingState(store, ctx.now).holds.set(id, heldUntil);
  ctx.runtime.reservationCreated(reservation);
  if (holdsNights(reservation.status)) ctx.runtime.reservationNightsChanged(reservation);
  return jsonAnswer(200, reservationAnswer(reservation, heldUntil, quote._id));
}

/** PUT /v1/reservations-v3/:id/status: a reservation that ended cannot be changed (422, as the reference names it). */
export function updateReservationStatus(ctx: RequestContext): SandboxAnswer {
  const { store } = ctx.runtime;
  const body = parseJsonObject(ctx.headers['content-type'], ctx.rawBody);
  if (typeof body.status !== 'string' || !STATUSES.includes(body.status)) {
    throw invalidParameters([{ field: 'status', message: `must be one of ${STATUSES.join(', ')}` }]);
  }
  expireHolds(store, ctx.now);
  const reservation = store.reservations.get(ctx.params.id);
  if (!reservation) throw notFound(`Reservation ${ctx.params.id} not found`);
  if (ENDED.includes(reservation.status)) {
    throw new UpstreamRefusal(422, {
      message: `Validation error failed updating status: the reservation is ${reservation.status}`,
      code: 'INVALID_STATUS_TRANSITION',
    });
  }
  const heldNights = holdsNights(reservation.status);
  const changed = reservation.status !== body.status;
  reservation.status = body.status;
  if (changed) ctx.runtime.reservationChanged(reservation);
  if (heldNights !== holdsNights(reservation.status)) ctx.runtime.reservationNightsChanged(reservation);
  // The reference's status answer: the reservation's id, its status and its money, nothing else.
  return jsonAnswer(200, { reservationId: reservation._id, status: reservation.status, money: statusAnswerMoney(reservation, ctx.now) });
}
