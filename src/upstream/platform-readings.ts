import { UpstreamListing } from './guesty.types';
import { PlatformListing } from './platform-results';

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
