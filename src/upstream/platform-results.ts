/*
 * What GuestyClient answers, in the product's words: each result is built inside src/upstream/ from
 * the platform's answer, whose wire shape (guesty.types.ts) no other room imports (lint-enforced).
 */

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
  accommodationDiscount?: number;
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
