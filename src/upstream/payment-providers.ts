import { Injectable } from '@nestjs/common';
import { GuestyClient } from './guesty-client';
import { PaymentProvider } from './guesty.types';
import { SharedReadCache } from '../redis/shared-read-cache';

/**
 * A replica keeps its own copy for a minute: a checkout reads the provider twice (session, card),
 * Redis once at most. A listing without a provider is remembered for a minute too, so a flood of
 * bookings on it reads the platform once, not once a booking.
 */
const PROVIDER_CACHE = { ttlMs: 5 * 60_000, localTtlMs: 60_000, missTtlMs: 60_000 };

/**
 * The payment provider of a listing: tokenization must use it (a card tokenized under another
 * processor account never shows in money.payments). Cached for minutes; diagnostics read it fresh
 * because a stale cache is one way a mismatch happens.
 */
@Injectable()
export class PaymentProviders {
  constructor(
    private readonly guesty: GuestyClient,
    private readonly cache: SharedReadCache,
  ) {}

  /**
   * At checkout priority whoever asks: a read in flight is shared by every caller of this listing (a
   * real checkout among them), so it must not wait behind an anonymous flood.
   */
  forListing(listingId: string, options: { fresh?: boolean } = {}): Promise<PaymentProvider | null> {
    if (options.fresh) return this.guesty.getPaymentProvider(listingId);
    return this.cache.getOrLoad('provider', listingId, PROVIDER_CACHE, () => this.guesty.getPaymentProvider(listingId));
  }
}
