/** The service's quote (docs/product-spec.md §3.1): what the site sees, and the upstream quote behind it. */
export interface RatePlanView {
  id: string;
  name: string;
  total: number;
  breakdown: { accommodation: number; cleaning: number; fees: number; taxes: number; discount: number };
}

export interface QuoteView {
  id: string;
  listingId: string;
  checkIn: string;
  checkOut: string;
  nights: number;
  guestsCount: number;
  currency: string;
  coupon?: string;
  /** Only with a coupon: whether the platform's prices include it, and why not in words for the guest. */
  couponApplied?: boolean;
  couponMessage?: string;
  expiresAt: string;
  ratePlans: RatePlanView[];
}

/** What Redis holds: the view and, server-side only, the upstream quote id and the request's digest. */
export interface StoredQuote {
  view: QuoteView;
  upstreamQuoteId: string;
  requestDigest: string;
}
