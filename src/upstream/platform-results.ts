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
