import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { randomBytes } from 'node:crypto';
import { Clock } from '../primitives/clock';
import { DomainError, FieldError } from '../common/errors/domain-error';
import { AppConfig } from '../config/app-config';
import { KeyValueStore } from '../redis/key-value-store';
import { RedisKeys } from '../redis/redis-keys';
import { SharedFetches } from '../redis/shared-fetches';
import { GuestyClient, refusedTerm } from '../upstream/guesty-client';
import { UpstreamError } from '../upstream/upstream-error';
import { QuoteOffer, RatePlanOffer } from '../upstream/platform-results';
import { QuoteRequestDto } from './dto/quote-request.dto';
import { QuoteView, RatePlanView, StoredQuote } from './quote';
import { ratePlanMoney } from './rate-plan-money';
import { dayNumber, isCalendarDate, today } from './stay-dates';
import { couponOutcome } from './coupon-outcome';
import { CalendarService } from './calendar.service';

const MAX_NIGHTS = 365;
/** A quote about to expire is not handed out again: the guest needs time to book it. */
const REUSE_MARGIN_MS = 60_000;

function ratePlanView(plan: RatePlanOffer, index: number): RatePlanView {
  return { id: plan.id ?? `plan-${index + 1}`, name: plan.name ?? 'Rate plan', ...ratePlanMoney(plan.money) };
}

/**
 * Quotes over the upstream's (docs/product-spec.md §3.1): every bad input is refused before the
 * upstream is asked; an identical request reuses a valid quote for QUOTE_REUSE_SECONDS, so
 * browsing dates does not spend a write per click; quotes are anonymous traffic (§7).
 */
@Injectable()
export class QuotesService {
  private readonly inFlight = new Map<string, Promise<QuoteView>>();

  constructor(
    private readonly guesty: GuestyClient,
    @Inject(KeyValueStore) private readonly store: KeyValueStore,
    private readonly keys: RedisKeys,
    private readonly clock: Clock,
    private readonly config: ConfigService<AppConfig, true>,
    private readonly fetches: SharedFetches,
    private readonly calendar: CalendarService,
  ) {}

  async create(request: QuoteRequestDto): Promise<QuoteView> {
    this.checkStay(request);
    const coupon = request.coupon ? request.coupon.toUpperCase() : undefined;
    const digest = RedisKeys.digest(
      JSON.stringify([request.listingId, request.checkIn, request.checkOut, request.guestsCount, coupon ?? '']),
    );
    const reused = await this.reusable(digest);
    if (reused) return reused;
    let pending = this.inFlight.get(digest);
    if (!pending) {
      pending = (this.reuses() ? this.quoteOnce(request, coupon, digest) : this.quote(request, coupon, digest)).finally(() =>
        this.inFlight.delete(digest),
      );
      this.inFlight.set(digest, pending);
    }
    return pending;
  }

  async load(id: string): Promise<StoredQuote | null> {
    const raw = await this.storeCall(() => this.store.get(this.keys.quotes().quote(id)));
    if (!raw) return null;
    const stored = JSON.parse(raw) as StoredQuote;
    return Date.parse(stored.view.expiresAt) > this.clock.now() ? stored : null;
  }

  /** A booked quote is never handed to another identical request. */
  async booked(stored: StoredQuote): Promise<void> {
    await this.store.delete(this.keys.quotes().byRequest(stored.requestDigest)).catch(() => undefined);
  }

  private checkStay(request: QuoteRequestDto): void {
    const problems: FieldError[] = [];
    if (!isCalendarDate(request.checkIn)) problems.push({ field: 'checkIn', message: 'checkIn must be a calendar date' });
    else if (request.checkIn < today(this.clock.now())) problems.push({ field: 'checkIn', message: 'checkIn must not be in the past' });
    if (!isCalendarDate(request.checkOut)) problems.push({ field: 'checkOut', message: 'checkOut must be a calendar date' });
    else if (problems.length === 0) {
      const nights = dayNumber(request.checkOut) - dayNumber(request.checkIn);
      if (nights < 1) problems.push({ field: 'checkOut', message: 'checkOut must be after checkIn' });
      else if (nights > MAX_NIGHTS) problems.push({ field: 'checkOut', message: `at most ${MAX_NIGHTS} nights` });
    }
    if (problems.length > 0) throw DomainError.validation(problems);
  }

  private reuses(): boolean {
    return this.config.get('booking', { infer: true }).quoteReuseSeconds > 0;
  }

  /** An identical request on another replica shares the quote one replica asks for (one upstream quote, however many replicas). */
  private quoteOnce(request: QuoteRequestDto, coupon: string | undefined, digest: string): Promise<QuoteView> {
    return this.fetches.once({
      lockKey: this.keys.fetchLock('quote-request', digest),
      kind: 'write',
      published: async () => (await this.reusable(digest)) ?? undefined,
      fetch: () => this.quote(request, coupon, digest),
    });
  }

  private async reusable(digest: string): Promise<QuoteView | null> {
    if (!this.reuses()) return null;
    const id = await this.store.get(this.keys.quotes().byRequest(digest)).catch(() => null);
    const stored = id ? await this.load(id).catch(() => null) : null;
    return stored && Date.parse(stored.view.expiresAt) - this.clock.now() > REUSE_MARGIN_MS ? stored.view : null;
  }

  private async quote(request: QuoteRequestDto, coupon: string | undefined, digest: string): Promise<QuoteView> {
    const { source, quoteReuseSeconds } = this.config.get('booking', { infer: true });
    const upstream = await this.guesty
      .createQuote({
        listingId: request.listingId,
        checkInDateLocalized: request.checkIn,
        checkOutDateLocalized: request.checkOut,
        guestsCount: request.guestsCount,
        source,
        ...(coupon ? { couponCode: coupon } : {}),
      })
      .catch(async (error: unknown) => {
        throw await this.withMinimum(error, request);
      });
    if (!upstream) throw new DomainError('listing_not_found', 'No listing has this id.');
    const view = this.view(upstream, request, coupon);
    const ttlMs = Date.parse(view.expiresAt) - this.clock.now();
    const quotes = this.keys.quotes();
    const stored: StoredQuote = { view, upstreamQuoteId: upstream.id, requestDigest: digest };
    await this.storeCall(() => this.store.set(quotes.quote(view.id), JSON.stringify(stored), { ttlMs }));
    const reuseMs = Math.min(quoteReuseSeconds * 1000, ttlMs - REUSE_MARGIN_MS);
    if (reuseMs > 0) await this.store.set(quotes.byRequest(digest), view.id, { ttlMs: reuseMs }).catch(() => false);
    return view;
  }

  /**
   * A refusal for the number of nights names the minimum when the calendar's arrival day has one the
   * stay falls short of: the platform's refusal has no published field for it (docs/upstream.md).
   * Otherwise the refusal is answered as it came.
   */
  private async withMinimum(error: unknown, request: QuoteRequestDto): Promise<unknown> {
    if (!(error instanceof UpstreamError) || error.code !== 'stay_not_allowed' || refusedTerm(error.upstreamMessage ?? '') !== 'nights')
      return error;
    const minNights = await this.calendar.minNightsFrom(request.listingId, request.checkIn).catch(() => null);
    const nights = dayNumber(request.checkOut) - dayNumber(request.checkIn);
    if (minNights === null || nights >= minNights) return error;
    return new DomainError('stay_not_allowed', `This stay does not meet the property’s terms: it needs at least ${minNights} nights.`, {
      limit: { reason: 'stay_too_short', minNights },
      cause: error,
    });
  }

  private view(upstream: QuoteOffer, request: QuoteRequestDto, coupon: string | undefined): QuoteView {
    const plans = upstream.ratePlans;
    if (plans.length === 0) throw new DomainError('upstream_error', 'The booking platform answered a quote without any rate plan.');
    const expires = Date.parse(upstream.expiresAt ?? '');
    return {
      id: `q_${randomBytes(16).toString('base64url')}`,
      listingId: request.listingId,
      checkIn: request.checkIn,
      checkOut: request.checkOut,
      nights: dayNumber(request.checkOut) - dayNumber(request.checkIn),
      guestsCount: request.guestsCount,
      currency: plans.find((plan) => plan.money.currency)?.money.currency ?? '',
      ...(coupon ? { coupon, ...couponOutcome(coupon, upstream.coupons) } : {}),
      // Without an expiry from the upstream, a quote is trusted for an hour.
      expiresAt: new Date(Number.isNaN(expires) ? this.clock.now() + 3_600_000 : expires).toISOString(),
      ratePlans: plans.map(ratePlanView),
    };
  }

  private async storeCall<R>(call: () => Promise<R>): Promise<R> {
    try {
      return await call();
    } catch (cause) {
      throw DomainError.storeUnavailable(cause);
    }
  }
}
