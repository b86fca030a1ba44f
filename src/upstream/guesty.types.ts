/*
 * The upstream's resources as far as the product reads them (docs/upstream-seed.md and docs/upstream.md). Fields
 * the product never reads are left out; unknown extra fields are ignored.
 */

export interface AccessTokenGrant {
  access_token: string;
  token_type: string;
  expires_in: number;
  scope?: string;
}

export interface UpstreamListing {
  _id: string;
  title?: string;
  nickname?: string;
  address?: { full?: string; city?: string; country?: string };
  pictures?: { original?: string; thumbnail?: string; caption?: string }[];
  prices?: { currency?: string; basePrice?: number };
  accommodates?: number;
  bedrooms?: number;
  propertyType?: string;
}

export interface UpstreamListingPage {
  results: UpstreamListing[];
  count: number;
  limit: number;
  skip: number;
}

/**
 * The listing's payment provider, without its apiKey (dropped as soon as the answer is read): only
 * the fields the reference publishes for provider-by-listing (the contract test holds it to that).
 */
export interface PaymentProvider {
  _id: string;
  paymentProviderId: string;
  status: string;
  accountName?: string;
}

export interface UpstreamPaymentAttempt {
  status?: string;
  createdAt?: string;
  error?: unknown;
  payload?: { code?: string; decline_code?: string; message?: string; payment_method?: { card?: { brand?: string; last4?: string } } };
}

export interface UpstreamPayment {
  _id: string;
  amount: number;
  currency: string;
  /** PENDING (scheduled or being charged), PENDING_AUTH, SUCCEEDED, FAILED, … */
  status: string;
  paymentMethodId?: string;
  guestId?: string;
  createdAt?: string;
  /** When the platform charges it, by the property's auto-payment policy. */
  shouldBePaidAt?: string;
  authenticationRequiredData?: { authenticationUrl?: string };
  attempts?: UpstreamPaymentAttempt[];
  /** An authorization hold (or a security deposit, a hold too): money held, never paid; its capture is a payment of its own. */
  isAuthorizationHold?: boolean;
  isSecurityDeposit?: boolean;
  /** Its refunds, each with its own id; one can still be PROCESSING until the provider settles it. */
  refunds?: UpstreamRefund[];
}

/** A payment's refund (its fields inferred: the refund pages publish its id, its amount asked and PROCESSING). */
export interface UpstreamRefund {
  _id?: string;
  amount?: number;
  status?: string;
}

/**
 * The payments list's "reservation payment summary fields" (published without names): the names the
 * product reads are inferred, and read only when the answer is an object carrying them.
 */
export interface UpstreamPaymentSummary {
  totalPaid?: number;
  balanceDue?: number;
}

export interface UpstreamInvoiceItem {
  _id?: string;
  title: string;
  amount: number;
  normalType: string;
  secondIdentifier?: string;
  description?: string;
  isTax?: boolean;
}

export interface UpstreamReservation {
  _id: string;
  confirmationCode?: string;
  status?: string;
  listingId: string;
  guestId: string;
  guest?: { email?: string };
  checkIn?: string;
  checkOut?: string;
  /** When a `reserved` hold ends, where the platform's read carries it (its create answer always does). */
  reservedExpiresAt?: string;
  money?: {
    currency?: string;
    totalPaid?: number;
    balanceDue?: number;
    isFullyPaid?: boolean;
    paymentProviderIds?: string[];
    invoiceItems?: UpstreamInvoiceItem[];
    payments?: UpstreamPayment[];
  };
}

/**
 * A reservation as `GET /reservations-v3` answers it (the reference's schema, docs/upstream.md "The
 * surface of 2027"): no money, no guest, no listingId and no hold end. The listing is the first
 * stay's `unitTypeId` (inferred); `listingId` and `reservedExpiresAt` are read only when present.
 */
export interface UpstreamReservationRead {
  _id: string;
  status?: string;
  confirmationCode?: string;
  bookerId?: string;
  listingId?: string;
  stay?: { checkInDateLocalized?: string; checkOutDateLocalized?: string; unitTypeId?: string; unitId?: string }[];
  reservedAt?: string;
  /** Hours (−1: no limit); the reference's examples are numbers, read as numbers from strings too. */
  reservedUntil?: number | string;
  reservedExpiresAt?: string;
}

/** `GET /guests-crud/{id}?fields=`: the guest's email (its other emails are not the booking's). */
export interface UpstreamGuestRead {
  _id?: string;
  email?: string;
  /** The guest reports guide's name for the email (its list column); read wherever an answer carries it. */
  guestEmail?: string;
}

/** One row of `GET /guests-crud?columns=…` (`results`, typed `object` by the reference: a list or keyed rows). */
export interface UpstreamGuestRow extends UpstreamGuestRead {
  id?: string;
}

/**
 * One reservation's line of `GET /guest-folio/overview`, asked for the published example's fields
 * only (`hostPayout,totalTaxes,currency`): the guest's total is `hostPayout` (docs/upstream.md).
 */
export interface UpstreamFolioOverviewLine {
  reservationId?: string;
  currency?: string;
  hostPayout?: number;
  totalTaxes?: number;
}

export interface UpstreamFolioOverview {
  results?: UpstreamFolioOverviewLine[];
  notFound?: string[];
}

/** One reservation's lines of `GET /guest-folio/invoice-items`. */
export interface UpstreamFolioItems {
  reservationId?: string;
  currency?: string;
  invoiceItems?: {
    id?: string;
    _id?: string;
    title?: string;
    totalPrice?: number;
    amount?: number;
    normalType?: string;
    secondIdentifier?: string;
    isTax?: boolean;
  }[];
}

export interface AttachPaymentMethodRequest {
  guestId: string;
  /** The tokenization `_id`: single-use. */
  tokenId: string;
  paymentProviderId: string;
  reservationId: string;
  /** The current surface links the card to the reservation by its code: required there, known before the write. */
  confirmationCode?: string;
}

/**
 * What the product reads of an attach answer: the method's id and its card. A production list item a
 * public integration published (docs/upstream-reference/examples/guest-payment-method.json) carries
 * `last4`/`brand` at the top level and the card again under `payload.card`: both are read.
 */
export interface UpstreamAttachedPaymentMethod {
  _id: string;
  last4?: string;
  brand?: string;
  payload?: { card?: { brand?: string; last4?: string } };
}

export interface UpstreamPaymentMethod extends UpstreamAttachedPaymentMethod {
  guestId?: string;
  paymentProviderId?: string;
  /**
   * Nothing published says a list item names it; the one production item published names the
   * booking's `confirmationCode` instead. A method counts for a reservation only when it names it by either.
   */
  reservationId?: string | null;
  confirmationCode?: string | null;
  reuse?: boolean;
  status?: string;
  createdAt?: string;
}

export interface InvoiceItemRequest {
  normalType: string;
  title: string;
  amount: number;
  description?: string;
  secondIdentifier?: string;
  realizationDates?: ({ date: string } | { from: string; to: string })[];
  /** What a guest's extras are (the platform's changelog of 2026-04-27); the current endpoint only. */
  isUpsellFee?: boolean;
  stayIndex?: number;
}

/** The tokenization request of docs/upstream-seed.md §2.2. Card fields pass through and are never logged or kept. */
export interface TokenizeRequest {
  paymentProviderId: string;
  listingId: string;
  card: { number: string; exp_month: string; exp_year: string; cvc: string };
  billing_details: { name: string; address: { line1: string; city: string; postal_code: string; country: string } };
  threeDS: { amount: number; currency: string; successURL?: string; failureURL?: string };
  merchantData?: { transactionId?: string; transactionDescription?: string; transactionDate?: string; freeText?: string };
}

export interface TokenizeResult {
  _id: string;
  threeDS?: { authURL?: string };
}

/** One day of GET /v1/availability-pricing/api/calendar/listings/{id} (docs/upstream.md "Booking"). */
export interface UpstreamCalendarDay {
  date: string;
  listingId?: string;
  currency?: string;
  price?: number;
  minNights?: number;
  /** available | booked | reserved | unavailable … */
  status?: string;
  /** Multi-unit listings: units left (asked with includeAllotment=true); it, not `status`, tells availability. */
  allotment?: number;
  /** Closed to arrival / departure. */
  cta?: boolean;
  ctd?: boolean;
}

export interface QuoteRequest {
  listingId: string;
  checkInDateLocalized: string;
  checkOutDateLocalized: string;
  guestsCount: number;
  source: string;
  couponCode?: string;
}

/** A rate plan's money as a quote carries it (fields the reference leaves open are read defensively). */
export interface UpstreamRatePlanMoney {
  currency?: string;
  fareAccommodation?: number;
  fareAccommodationAdjusted?: number;
  fareCleaning?: number;
  totalFees?: number;
  totalTaxes?: number;
  subTotalPrice?: number;
  hostPayout?: number;
  /** The lines the total is made of (docs/upstream-reference/examples/booking-engine-quote.json). */
  invoiceItems?: { title?: string; amount?: number; normalType?: string; type?: string }[];
}

export interface UpstreamQuote {
  _id: string;
  status?: string;
  checkInDateLocalized?: string;
  checkOutDateLocalized?: string;
  guestsCount?: number;
  expiresAt?: string;
  /** Set once a reservation was made from the quote. */
  reservationId?: string;
  /** The coupons the quote's prices include (the reference: an array of objects, fields unlisted). */
  coupons?: unknown[];
  rates?: { ratePlans?: { ratePlan?: { _id?: string; name?: string; money?: UpstreamRatePlanMoney } }[] };
}

export interface GuestRequest {
  firstName: string;
  lastName: string;
  email: string;
  phone?: string;
}

export interface UpstreamGuest {
  _id: string;
  email?: string;
  returningGuest?: boolean;
}

/** The reference's `reservedUntil` values, in the form it declares (`type: string`, example "-1"): hours as fractions, named periods, or -1 (no limit). */
export type ReservedUntil = '0.17' | '0.25' | '0.5' | 'twelveHours' | 'day' | 'thirtySixHours' | 'twoDays' | 'threeDays' | '-1';

export interface ReservationFromQuoteRequest {
  quoteId: string;
  status: 'reserved' | 'confirmed' | 'inquiry';
  ratePlanId?: string;
  reservedUntil?: ReservedUntil;
  guestId: string;
}

/**
 * The Reservations V3 create answer. Its dates are not read: the reference gives them as date-times
 * (checkInDate), whose local day needs the listing's time zone, and a reservation made from a quote
 * has the quote's dates, which the product already holds.
 */
export interface UpstreamReservationV3 {
  reservationId: string;
  confirmationCode?: string;
  status?: string;
  guestId?: string;
  reservedExpiresAt?: string;
}

/** The Reservations V3 status answer: the reference names its id, status and money only. */
export interface UpstreamReservationStatus {
  reservationId: string;
  status?: string;
}
