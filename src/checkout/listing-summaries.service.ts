import { Injectable } from '@nestjs/common';
import { DomainError } from '../common/errors/domain-error';
import { GuestyClient } from '../upstream/guesty-client';
import { PlatformListing } from '../upstream/platform-results';
import { SharedReadCache } from '../redis/shared-read-cache';
import { ListingSummary } from './listing-summary';
import { PublicCaching, PublicText, strongEtag } from '../common/http/public-answer';

/**
 * A public summary may be a few seconds staler on one replica than in Redis: the hottest read then
 * skips Redis. An unknown id is remembered for a minute (docs/product-spec.md §7), so guessing ids costs the
 * upstream one read per id and minute at most.
 */
const SUMMARY_CACHE = { ttlMs: 5 * 60_000, localTtlMs: 10_000, missTtlMs: 60_000 };

/** A browser or CDN keeps a summary as long as a replica keeps its own copy, and may serve it stale while Redis keeps it. */
export const SUMMARY_CACHING: PublicCaching = {
  maxAgeSeconds: SUMMARY_CACHE.localTtlMs / 1000,
  staleWhileRevalidateSeconds: SUMMARY_CACHE.ttlMs / 1000,
};

export function summarise(listing: PlatformListing): ListingSummary {
  return {
    id: listing.id,
    title: listing.title ?? listing.id,
    city: listing.city,
    country: listing.country,
    picture: listing.picture,
    currency: listing.currency,
  };
}

@Injectable()
export class ListingSummariesService {
  /** Each summary copy's JSON text and its ETag, made once per copy this replica keeps. */
  private readonly texts = new WeakMap<ListingSummary, PublicText>();

  constructor(
    private readonly guesty: GuestyClient,
    private readonly cache: SharedReadCache,
  ) {}

  async get(listingId: string): Promise<ListingSummary> {
    const summary = await this.cache.getOrLoad('listing-summary', listingId, SUMMARY_CACHE, async () => {
      const listing = await this.guesty.getListing(listingId);
      return listing ? summarise(listing) : null;
    });
    return found(summary);
  }

  /**
   * The summary as the JSON text a public read answers, with its ETag: made once per copy this
   * replica keeps, so a read of a held summary (a 304 too) serialises and hashes nothing. A copy
   * held here is answered at once, without a promise; any other is read first.
   */
  text(listingId: string): PublicText | Promise<PublicText> {
    const held = this.cache.heldHere<ListingSummary>('listing-summary', listingId);
    if (held) return this.textOf(found(held.value));
    return this.get(listingId).then((summary) => this.textOf(summary));
  }

  private textOf(summary: ListingSummary): PublicText {
    let answer = this.texts.get(summary);
    if (answer === undefined) {
      const text = JSON.stringify(summary);
      this.texts.set(summary, (answer = { text, etag: strongEtag(text) }));
    }
    return answer;
  }
}

function found(summary: ListingSummary | null): ListingSummary {
  if (!summary) throw new DomainError('listing_not_found', 'No listing has this id.');
  return summary;
}
