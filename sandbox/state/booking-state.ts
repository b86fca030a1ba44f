/**
 * The booking side of the sandbox (docs/sandbox.md, "Booking"): calendars, quotes with rate plans,
 * and holds that expire at their `reservedUntil`. Kept beside the store, not in it, so the payment
 * side of the store stays as it is; one state per store, so a reset starts it afresh.
 */
import { isTaxType } from '../open-api/invoice-item-rules';
import { roundMoney } from './money';
import type { ListingRecord, ReservationRecord } from './records';
import type { SandboxStore } from './store';

const DAY_MS = 24 * 60 * 60 * 1000;
/** How long an upstream quote stays valid. */
export const QUOTE_VALIDITY_MS = 24 * 60 * 60 * 1000;
/** The documented test coupon: 10 % off the accommodation fare. */
export const SANDBOX_COUPON = { code: 'SANDBOX10', percentOff: 10 } as const;

export interface BookingTerms {
  minNights: number;
  taxType: 'TAX' | 'VAT';
  taxRate: number;
  /** Days from the sandbox's start that the owner blocked (status `unavailable`). */
  blockedOffsets: number[];
  /** Weekdays (0 = Sunday) closed to arrival. */
  closedToArrival: number[];
  /** A multi-unit listing's like units: its days carry an `allotment` (units left), and `status` stops telling availability. */
  units?: number;
}

/** Per listing id; listings without an entry book on one night, 10 % tax, nothing blocked. */
export const BOOKING_TERMS: Record<string, BookingTerms> = {
  'lst-seaside': { minNights: 2, taxType: 'TAX', taxRate: 0.1, blockedOffsets: [8, 9], closedToArrival: [] },
  'lst-city': { minNights: 1, taxType: 'VAT', taxRate: 0.1, blockedOffsets: [15, 16], closedToArrival: [] },
  'lst-mountain': { minNights: 3, taxType: 'VAT', taxRate: 0.2, blockedOffsets: [20, 21, 22], closedToArrival: [0] },
  'lst-closed': { minNights: 2, taxType: 'TAX', taxRate: 0.1, blockedOffsets: [], closedToArrival: [] },
  'lst-suites': { minNights: 1, taxType: 'TAX', taxRate: 0.1, blockedOffsets: [12], closedToArrival: [], units: 3 },
};

const DEFAULT_TERMS: BookingTerms = { minNights: 1, taxType: 'TAX', taxRate: 0.1, blockedOffsets: [], closedToArrival: [] };

export function termsOf(listingId: string): BookingTerms {
  return BOOKING_TERMS[listingId] ?? DEFAULT_TERMS;
}

export interface RatePlanMoney {
  currency: string;
  fareAccommodation: number;
  fareAccommodationAdjusted: number;
  fareAccommodationDiscount: number;
  fareCleaning: number;
  totalFees: number;
  totalTaxes: number;
  subTotalPrice: number;
  hostPayout: number;
  invoiceItems: { title: string; amount: number; currency: string; normalType: string; isTax: boolean }[];
}

export interface QuoteRatePlan {
  _id: string;
  name: string;
  money: RatePlanMoney;
}

export interface QuoteRecord {
  _id: string;
  listingId: string;
  checkIn: string;
  checkOut: string;
  guestsCount: number;
  source: string;
  couponCode?: string;
  ratePlans: QuoteRatePlan[];
  createdAt: number;
  expiresAt: number;
  reservationId?: string;
}

interface BookingState {
  startedAt: number;
  quotes: Map<string, QuoteRecord>;
  /** reservationId → when its hold ends (reserved reservations made from quotes). */
  holds: Map<string, number>;
  /** listingId → nights the owner blocked since the start (control.blockNights), YYYY-MM-DD. */
  blockedNights: Map<string, Set<string>>;
  /** The channel's commission on the fares, in percent (control.setChannelCommission): what `hostPayout` leaves out. */
  commissionPercent: number;
}

const STATES = new WeakMap<SandboxStore, BookingState>();

export function bookingState(store: SandboxStore, now: number): BookingState {
  let state = STATES.get(store);
  if (!state) {
    state = { startedAt: now, quotes: new Map(), holds: new Map(), blockedNights: new Map(), commissionPercent: 0 };
    STATES.set(store, state);
  }
  return state;
}

export function dayString(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function dayMs(date: string): number {
  return Date.parse(`${date}T00:00:00.000Z`);
}

export function nightsBetween(checkIn: string, checkOut: string): number {
  return Math.round((dayMs(checkOut) - dayMs(checkIn)) / DAY_MS);
}

/** A hold that ended turns its reservation `expired` and frees its dates (the upstream does this by itself); answers those. */
export function expireHolds(store: SandboxStore, now: number): ReservationRecord[] {
  const { holds } = bookingState(store, now);
  const expired: ReservationRecord[] = [];
  for (const [reservationId, until] of holds) {
    const reservation = store.reservations.get(reservationId);
    if (!reservation || reservation.status !== 'reserved') {
      holds.delete(reservationId);
    } else if (until <= now) {
      reservation.status = 'expired';
      holds.delete(reservationId);
      expired.push(reservation);
    }
  }
  return expired;
}

/** The owner blocks the nights from `from` to `to` (both included), as in the platform's calendar. */
export function blockNights(store: SandboxStore, listingId: string, from: string, to: string, now: number): void {
  const { blockedNights } = bookingState(store, now);
  const nights = blockedNights.get(listingId) ?? new Set<string>();
  for (let at = dayMs(from); at <= dayMs(to); at += DAY_MS) nights.add(dayString(at));
  blockedNights.set(listingId, nights);
}

export function holdOf(store: SandboxStore, reservationId: string, now: number): number | undefined {
  return bookingState(store, now).holds.get(reservationId);
}

const BLOCKING = new Set(['confirmed', 'reserved']);

/** Whether a reservation in this status holds its nights on the calendar. */
export function holdsNights(status: string): boolean {
  return BLOCKING.has(status);
}

function bookingsOn(store: SandboxStore, listingId: string, date: string): ReservationRecord[] {
  return [...store.reservations.values()].filter(
    (reservation) =>
      reservation.listingId === listingId &&
      BLOCKING.has(reservation.status) &&
      reservation.checkIn.slice(0, 10) <= date &&
      date < reservation.checkOut.slice(0, 10),
  );
}

export interface CalendarDay {
  date: string;
  listingId: string;
  currency: string;
  price: number;
  minNights: number;
  status: 'available' | 'booked' | 'unavailable';
  cta: boolean;
  ctd: boolean;
  reservationId?: string;
  /** Multi-unit listings only: units left that day. */
  allotment?: number;
}

/**
 * Whether a night can be booked, as the platform tells integrators: by the allotment where the day
 * has one (a multi-unit listing), by the status otherwise (docs/upstream.md "Booking").
 */
export function isBookable(day: Pick<CalendarDay, 'status' | 'allotment'>): boolean {
  return typeof day.allotment === 'number' ? day.allotment > 0 : day.status === 'available';
}

/** Fridays and Saturdays cost a quarter more. */
function nightlyPrice(listing: ListingRecord, date: string): number {
  const weekday = new Date(dayMs(date)).getUTCDay();
  return roundMoney(listing.prices.basePrice * (weekday === 5 || weekday === 6 ? 1.25 : 1));
}

export function calendarDay(store: SandboxStore, listing: ListingRecord, date: string, now: number): CalendarDay {
  const terms = termsOf(listing._id);
  const { startedAt, blockedNights } = bookingState(store, now);
  const offset = Math.round((dayMs(date) - dayMs(dayString(startedAt))) / DAY_MS);
  const bookings = bookingsOn(store, listing._id, date);
  const booked = bookings[0];
  const blocked = terms.blockedOffsets.includes(offset) || (blockedNights.get(listing._id)?.has(date) ?? false);
  return {
    date,
    listingId: listing._id,
    currency: listing.prices.currency,
    price: nightlyPrice(listing, date),
    minNights: terms.minNights,
    status: booked ? 'booked' : blocked ? 'unavailable' : 'available',
    cta: terms.closedToArrival.includes(new Date(dayMs(date)).getUTCDay()),
    ctd: false,
    ...(booked ? { reservationId: booked._id } : {}),
    // A multi-unit listing's day is `booked` once one unit is, though others are left: read the allotment.
    ...(terms.units ? { allotment: blocked ? 0 : Math.max(0, terms.units - bookings.length) } : {}),
  };
}

export function calendarDays(store: SandboxStore, listing: ListingRecord, from: string, to: string, now: number): CalendarDay[] {
  const days: CalendarDay[] = [];
  for (let at = dayMs(from); at <= dayMs(to); at += DAY_MS) days.push(calendarDay(store, listing, dayString(at), now));
  return days;
}

/** Why a stay cannot be quoted or booked, in the upstream's words; null when it can. */
export function stayRefusal(
  store: SandboxStore,
  listing: ListingRecord,
  stay: { checkIn: string; checkOut: string; guestsCount: number },
  now: number,
): { kind: 'calendar' | 'terms'; code: string; message: string } | null {
  const nights = nightsBetween(stay.checkIn, stay.checkOut);
  for (let index = 0; index < nights; index += 1) {
    const day = calendarDay(store, listing, dayString(dayMs(stay.checkIn) + index * DAY_MS), now);
    if (!isBookable(day)) {
      return {
        kind: 'calendar',
        code: 'LISTING_CALENDAR_BLOCKED',
        message: `The listing is not available for the requested dates (${day.date} is ${day.status})`,
      };
    }
  }
  const terms = termsOf(listing._id);
  if (nights < terms.minNights) {
    return {
      kind: 'terms',
      code: 'MIN_NIGHTS_NOT_MET',
      message: `Reservation terms violated: the minimum stay is ${terms.minNights} nights`,
    };
  }
  if (stay.guestsCount > listing.accommodates) {
    return {
      kind: 'terms',
      code: 'MAX_GUESTS_EXCEEDED',
      message: `Reservation terms violated: the listing accommodates at most ${listing.accommodates} guests`,
    };
  }
  if (terms.closedToArrival.includes(new Date(dayMs(stay.checkIn)).getUTCDay())) {
    return { kind: 'terms', code: 'CLOSED_TO_ARRIVAL', message: `Reservation terms violated: check-in is closed on ${stay.checkIn}` };
  }
  return null;
}

function planMoney(
  store: SandboxStore,
  listing: ListingRecord,
  stay: { checkIn: string; checkOut: string },
  percentOff: number,
  now: number,
): RatePlanMoney {
  const terms = termsOf(listing._id);
  const nights = nightsBetween(stay.checkIn, stay.checkOut);
  let fare = 0;
  for (let index = 0; index < nights; index += 1)
    fare += calendarDay(store, listing, dayString(dayMs(stay.checkIn) + index * DAY_MS), now).price;
  fare = roundMoney(fare);
  const discount = roundMoney((fare * percentOff) / 100);
  const adjusted = roundMoney(fare - discount);
  const cleaning = listing.prices.cleaningFee;
  const taxes = roundMoney((adjusted + cleaning) * terms.taxRate);
  const subTotal = roundMoney(adjusted + cleaning);
  return {
    currency: listing.prices.currency,
    fareAccommodation: fare,
    fareAccommodationAdjusted: adjusted,
    fareAccommodationDiscount: discount,
    fareCleaning: cleaning,
    // The platform's fees include the cleaning fee (docs/upstream-reference/examples/booking-engine-quote.json).
    totalFees: cleaning,
    totalTaxes: taxes,
    subTotalPrice: subTotal,
    // What the host keeps: the guest's total less the channel's commission on the fares (none by default).
    hostPayout: roundMoney(subTotal + taxes - ((adjusted + cleaning) * bookingState(store, now).commissionPercent) / 100),
    invoiceItems: [
      { title: 'Accommodation fare', amount: adjusted, currency: listing.prices.currency, normalType: 'AF', isTax: false },
      { title: 'Cleaning fee', amount: cleaning, currency: listing.prices.currency, normalType: 'CF', isTax: false },
      {
        title: terms.taxType === 'VAT' ? 'VAT' : 'Occupancy tax',
        amount: taxes,
        currency: listing.prices.currency,
        normalType: terms.taxType,
        isTax: isTaxType(terms.taxType),
      },
    ],
  };
}

/** Two rate plans: flexible at the calendar's prices, and non-refundable 10 % cheaper; the coupon takes 10 % off either. */
export function ratePlansFor(
  store: SandboxStore,
  listing: ListingRecord,
  stay: { checkIn: string; checkOut: string },
  couponApplies: boolean,
  now: number,
): QuoteRatePlan[] {
  const coupon = couponApplies ? SANDBOX_COUPON.percentOff : 0;
  return [
    { _id: 'rp-flexible', name: 'Flexible', money: planMoney(store, listing, stay, coupon, now) },
    { _id: 'rp-non-refundable', name: 'Non-refundable', money: planMoney(store, listing, stay, coupon + 10, now) },
  ];
}
