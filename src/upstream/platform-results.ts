import { InvoiceItemRequest } from './guesty.types';

/*
 * What GuestyClient answers, in the product's words: each result is built inside src/upstream/ from
 * the platform's answer, whose wire shape (guesty.types.ts) no other room imports (lint-enforced).
 * The requests a room hands the client, and the listing's payment provider (read field for field as
 * the reference publishes it, its apiKey dropped), are re-exported from here with them.
 */
export type {
  AttachPaymentMethodRequest,
  GuestRequest,
  InvoiceItemRequest,
  PaymentProvider,
  QuoteRequest,
  ReservationFromQuoteRequest,
  ReservedUntil,
  TokenizeRequest,
} from './guesty.types';

/** A listing as the booking site may show it. */
export interface PlatformListing {
  id: string;
  /** The listing's title, else its nickname. */
  title?: string;
  city?: string;
  country?: string;
  /** The first picture's address (the original, else its thumbnail). */
  picture?: string;
  currency?: string;
}

export interface PlatformListingPage {
  listings: PlatformListing[];
  count: number;
  limit: number;
  skip: number;
}

/** One day of a listing's calendar. */
export interface CalendarDay {
  date: string;
  currency?: string;
  price?: number;
  minNights?: number;
  /** available | booked | reserved | unavailable … */
  status?: string;
  /** Multi-unit listings: units left; it, not `status`, tells availability. */
  allotment?: number;
  closedToArrival?: boolean;
  closedToDeparture?: boolean;
}

/**
 * A rate plan's money, the platform's figures by what they are (fields the reference leaves open are
 * read defensively). The host's payout is not among them: it is never what the guest pays.
 */
export interface RatePlanMoney {
  currency?: string;
  accommodationFare?: number;
  /** The accommodation fare after its discount. */
  discountedAccommodationFare?: number;
  cleaningFee?: number;
  /** Every fee, the cleaning fee included. */
  fees?: number;
  taxes?: number;
  /** Fares and fees, before taxes. */
  subTotal?: number;
  /** The lines the total is made of. */
  lines?: { title?: string; amount?: number; normalType?: string; type?: string }[];
}

export interface RatePlanOffer {
  id?: string;
  name?: string;
  money: RatePlanMoney;
}

/** The platform's quote for a stay: its rate plans, until it expires. */
export interface QuoteOffer {
  id: string;
  checkIn?: string;
  checkOut?: string;
  expiresAt?: string;
  /** Set once a reservation was made from the quote. */
  reservationId?: string;
  /** The coupons the quote's prices include (the reference: an array of objects, fields unlisted). */
  coupons?: unknown[];
  ratePlans: RatePlanOffer[];
}

export interface PlatformGuest {
  id: string;
  email?: string;
}

/** A reservation made from a quote, or its status changed: the hold as the platform answered it. */
/** A reservation made from a quote: its dates are the quote's. */
export interface ReservationHold {
  reservationId: string;
  confirmationCode?: string;
  status?: string;
  guestId?: string;
  /** When a `reserved` hold ends. */
  holdEndsAt?: string;
}

/**
 * The reference's reservation `status` enum (docs/upstream.md, "Whether a reservation still holds its
 * dates"), the same on the current read and the legacy one: every status the product can read.
 */
export const RESERVATION_STATUSES = [
  'confirmed',
  'reserved',
  'awaiting_payment',
  'inquiry',
  'canceled',
  'closed',
  'declined',
  'expired',
] as const;
export type ReservationStatusRead = (typeof RESERVATION_STATUSES)[number];

/**
 * How a reservation in this status stopped holding its dates, or null while it holds them (or the
 * status is not the reference's): `canceled`, `closed` and `declined` end it as canceled; `expired`,
 * and an `inquiry`, which holds no dates (the platform's help centre), as expired.
 */
export function holdEndedAs(status: string | undefined): 'expired' | 'canceled' | null {
  if (status === 'canceled' || status === 'closed' || status === 'declined') return 'canceled';
  if (status === 'expired' || status === 'inquiry') return 'expired';
  return null;
}

/** What a status change answers: the status the reservation now has. */
export interface ReservationStatusChange {
  reservationId: string;
  status?: string;
}

/** An invoice item as the platform holds it on a reservation's folio: the fields sent, its id when the answer carried one. */
export interface InvoiceLine extends Pick<InvoiceItemRequest, 'title' | 'amount' | 'normalType' | 'secondIdentifier' | 'description'> {
  id?: string;
  isTax?: boolean;
}

/** A charge attempt of a payment, with the processor's own codes and words (unscrubbed: scrub before showing). */
export interface PaymentAttempt {
  status?: string;
  at?: string;
  /** The last four digits of the card the processor charged. */
  last4?: string;
  code?: string;
  declineCode?: string;
  message?: string;
}

/** A payment the platform shows on a reservation: scheduled, being charged, waiting for the guest, paid or failed. */
export interface PlatformPayment {
  id: string;
  /** An authorization hold or security deposit: money held, never paid (ReservationMoney keeps them apart). */
  hold?: true;
  amount: number;
  currency: string;
  /** PENDING (scheduled or being charged), PENDING_AUTH, SUCCEEDED, FAILED, … in upper case whatever the platform's. */
  status: string;
  /** The payment method charged. */
  methodId?: string;
  createdAt?: string;
  /** When the platform charges it, by the property's auto-payment policy. */
  dueAt?: string;
  /** Where the guest authenticates a charge waiting for them (PENDING_AUTH). */
  authenticationUrl?: string;
  attempts?: PaymentAttempt[];
}

/** What a reservation's money shows: the totals, the folio and the payments. */
export interface ReservationMoney {
  currency?: string;
  /** The succeeded payments less their succeeded refunds (holds never count; their captures do). */
  paid?: number;
  balanceDue?: number;
  fullyPaid?: boolean;
  paymentProviderIds?: string[];
  folio?: InvoiceLine[];
  /** Its payments, authorization holds apart (below): money held is not a payment. */
  payments?: PlatformPayment[];
  /** Its authorization holds and security deposits: never paid until captured, and then the capture is the payment. */
  holds?: PlatformPayment[];
}

/** A reservation as the platform holds it now. */
export interface PlatformReservation {
  id: string;
  confirmationCode?: string;
  status?: string;
  listingId: string;
  guestId: string;
  guestEmail?: string;
  checkIn?: string;
  checkOut?: string;
  /** When a `reserved` hold ends, where the platform's read carries it. */
  holdEndsAt?: string;
  money?: ReservationMoney;
  /** The payment methods on file for it, when asked for (part `cards`): from its payments (legacy) or the method list (current). */
  cardsOnFile?: string[];
}

/** A guest's payment method as the platform lists it on a reservation: its card's digits and brand wherever the answer put them. */
export interface PaymentMethodOnFile {
  id: string;
  guestId?: string;
  paymentProviderId?: string;
  /** The reservation it is attached to, where the platform names it (by id, or by its confirmation code). */
  reservationId?: string | null;
  confirmationCode?: string | null;
  /** ACTIVE, INACTIVE, … */
  status?: string;
  createdAt?: string;
  last4?: string;
  brand?: string;
}
