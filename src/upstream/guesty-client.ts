import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { AppConfig } from '../config/app-config';
import { AccessToken, AccessTokens } from './access-tokens';
import {
  AttachPaymentMethodRequest,
  GuestRequest,
  QuoteRequest,
  ReservationFromQuoteRequest,
  UpstreamCalendarDay,
  UpstreamGuest,
  UpstreamQuote,
  UpstreamReservationV3,
  UpstreamReservationStatus,
  InvoiceItemRequest,
  PaymentProvider,
  TokenizeRequest,
  UpstreamListing,
  UpstreamListingPage,
  UpstreamAttachedPaymentMethod,
  UpstreamPaymentMethod,
  UpstreamReservation,
} from './guesty.types';
import { OutboundRateLimiter, Priority } from './outbound-rate-limiter';
import { backoffDelayMs, sleep } from './retry-policy';
import { readTokenizeAnswer, TokenizeAnswer } from './tokenize-answer';
import { UpstreamError } from './upstream-error';
import { UpstreamAnswer, UpstreamCall, UpstreamHttp } from './upstream-http';
import { scrubText } from '../common/logging/redaction';
import { inSpan } from '../common/telemetry/in-span';
import { InvoiceItemAnswer, readInvoiceItemAnswer } from './invoice-item-answer';
import {
  CalendarDay,
  PaymentMethodOnFile,
  PlatformGuest,
  PlatformListing,
  PlatformListingPage,
  PlatformReservation,
  QuoteOffer,
  ReservationHold,
  ReservationStatusChange,
} from './platform-results';
import {
  attachedMethodOf,
  calendarDayOf,
  guestOf,
  holdOf,
  listingOf,
  methodOnFileOf,
  quoteOf,
  reservationOf,
  statusChangeOf,
} from './platform-readings';

type Kind = 'read' | 'write';
export type { Priority };

interface OpenApiCall extends Omit<UpstreamCall, 'host' | 'headers'> {
  kind: Kind;
  priority: Priority;
  /** A booking call: a refusal of the dates or terms is an answer, even as 401 (never a token problem). */
  bookingAnswer?: boolean;
}

const enc = encodeURIComponent;

function upstreamMessage(data: unknown): string | undefined {
  const message = (data as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? scrubText(message).slice(0, 300) : undefined;
}

/** How long after a call the same token answered, a 4xx on a booking call is the booking's, not the token's. */
const TOKEN_PROVEN_MS = 60_000;

export type BookingRefusal = 'dates_unavailable' | 'stay_not_allowed' | 'booking_refused';

function platformWords(answer: UpstreamAnswer): string {
  const data = answer.data as { message?: unknown; code?: unknown; error?: { message?: unknown; code?: unknown } } | null;
  return [data?.message, data?.code, data?.error?.message, data?.error?.code].filter((part) => typeof part === 'string').join(' ');
}

/**
 * A 4xx answer to a quote or a reservation create, read as the booking's answer or not (null: the
 * token's or the request's). The platform's reference says both "decline (401)" unavailable dates
 * or broken terms, and a 401 may carry no more than "Unauthorized": only words that name a token
 * problem (or the account's permissions) make it the token's; words about dates or terms say which
 * refusal; anything else is a refusal of the booking when the same token was proven good within the
 * last minute (`tokenProven`), and the token's otherwise (docs/product-spec.md §3.1).
 */
export function bookingRefusal(answer: UpstreamAnswer, tokenProven: boolean): BookingRefusal | null {
  if (answer.status < 400 || answer.status >= 500 || [404, 410, 429].includes(answer.status)) return null;
  const words = platformWords(answer);
  if (/token|jwt|bearer|credential|permission|inactive/i.test(words)) return null;
  if (/availab|calendar|blocked|booked|occupied/i.test(words)) return 'dates_unavailable';
  if (/nights|terms|guests|arrival|departure|stay/i.test(words)) return 'stay_not_allowed';
  return tokenProven ? 'booking_refused' : null;
}

/** What the guest is told of a refusal: the product's words; the platform's go to the log. */
function refusalDetail(refusal: BookingRefusal, words: string): string {
  if (refusal === 'dates_unavailable') return 'These dates are not available for this listing. Please choose other dates.';
  if (refusal === 'booking_refused')
    return 'The property’s booking system declined this booking. Please try other dates, or contact the property.';
  if (/guests/i.test(words)) return 'This stay does not meet the property’s terms: too many guests for this property.';
  if (/arrival|departure/i.test(words))
    return 'This stay does not meet the property’s terms: check-in or check-out is not allowed on these dates.';
  if (/nights/i.test(words))
    return 'This stay does not meet the property’s terms: the number of nights is outside what the property allows.';
  return 'This stay does not meet the property’s terms.';
}

/**
 * Typed calls to the Open API and the tokenization host. Every Open API call takes a slot of the
 * shared budget, carries the shared token, re-mints at most once on 401/403, honours 429s for all
 * replicas, and retries only reads, or requests that surely never left.
 */
@Injectable()
export class GuestyClient {
  private readonly logger = new Logger('GuestyClient');
  /** The last token an Open API call was answered 2xx with, and when: a later 4xx on a booking call is not that token's fault. */
  private proven?: { token: string; at: number };

  constructor(
    private readonly http: UpstreamHttp,
    private readonly tokens: AccessTokens,
    private readonly limiter: OutboundRateLimiter,
    private readonly config: ConfigService<AppConfig, true>,
  ) {}

  async getListings(page: { limit: number; skip: number }): Promise<PlatformListingPage> {
    const answer = await this.openApi({
      operation: 'getListings',
      kind: 'read',
      priority: 'background',
      method: 'GET',
      path: '/listings',
      query: { limit: String(page.limit), skip: String(page.skip) },
    });
    const { results, ...paging } = this.expect(answer, 'getListings') as UpstreamListingPage;
    return { listings: (results ?? []).map(listingOf), ...paging };
  }

  /** Anonymous by default: a public listing read may only use its share of the budget. */
  async getListing(listingId: string, priority: Priority = 'anonymous'): Promise<PlatformListing | null> {
    const answer = await this.openApi({
      operation: 'getListing',
      kind: 'read',
      priority,
      method: 'GET',
      path: `/listings/${enc(listingId)}`,
    });
    return answer.status === 404 ? null : listingOf(this.expect(answer, 'getListing') as UpstreamListing);
  }

  /** The listing's active payment provider; the apiKey is dropped here and never travels further. */
  async getPaymentProvider(listingId: string): Promise<PaymentProvider | null> {
    const answer = await this.openApi({
      operation: 'getPaymentProvider',
      kind: 'read',
      priority: 'checkout',
      method: 'GET',
      path: '/payment-providers/provider-by-listing',
      query: { listingId },
    });
    if (answer.status === 404) return null;
    const { _id, paymentProviderId, status, accountName } = this.expect(answer, 'getPaymentProvider') as PaymentProvider & {
      apiKey?: unknown;
    };
    return { _id, paymentProviderId, status, accountName };
  }

  async getReservation(reservationId: string, priority: Priority = 'checkout'): Promise<PlatformReservation | null> {
    const answer = await this.openApi({
      operation: 'getReservation',
      kind: 'read',
      priority,
      method: 'GET',
      path: `/reservations/${enc(reservationId)}`,
      query: { fields: '_id confirmationCode status reservedExpiresAt listingId guestId guest checkIn checkOut money' },
    });
    return answer.status === 404 ? null : reservationOf(this.expect(answer, 'getReservation') as UpstreamReservation);
  }

  async attachPaymentMethod(request: AttachPaymentMethodRequest): Promise<PaymentMethodOnFile> {
    const answer = await this.openApi({
      operation: 'attachPaymentMethod',
      kind: 'write',
      priority: 'checkout',
      method: 'POST',
      path: `/guests/${enc(request.guestId)}/payment-methods`,
      json: { _id: request.tokenId, paymentProviderId: request.paymentProviderId, reservationId: request.reservationId, reuse: false },
    });
    return attachedMethodOf(this.expect(answer, 'attachPaymentMethod') as UpstreamAttachedPaymentMethod);
  }

  /**
   * The guest's methods attached to this reservation. Always with `reservationId` (without it the
   * upstream may answer an empty list even though a method exists) and `reuse=false`: the filter
   * defaults to `true`, and the service attaches with `reuse: false` (docs/upstream.md).
   */
  async listPaymentMethods(guestId: string, reservationId: string, priority: Priority = 'checkout'): Promise<PaymentMethodOnFile[]> {
    const answer = await this.openApi({
      operation: 'listPaymentMethods',
      kind: 'read',
      priority,
      method: 'GET',
      path: `/guests/${enc(guestId)}/payment-methods`,
      query: { reservationId, reuse: 'false' },
    });
    if (answer.status === 404) return [];
    const data = this.expect(answer, 'listPaymentMethods') as UpstreamPaymentMethod[] | { results?: UpstreamPaymentMethod[] };
    // The reference shows a bare array; a paged {results} answer is read the same way. The list was
    // asked for this reservation: an item that does not name its reservation again is on it.
    return (Array.isArray(data) ? data : (data?.results ?? [])).map((method) =>
      methodOnFileOf(method.reservationId === undefined || method.reservationId === null ? { ...method, reservationId } : method),
    );
  }

  /**
   * Through the current endpoint, or the deprecated one when configured, which takes no
   * realizationDates (refused before this), nor isUpsellFee or stayIndex (left out here: it cannot say them).
   */
  async addInvoiceItem(reservationId: string, request: InvoiceItemRequest): Promise<InvoiceItemAnswer> {
    const deprecated = this.config.get('guesty', { infer: true }).invoiceItemsEndpoint === 'deprecated';
    const { isUpsellFee, stayIndex, ...item } = request;
    if (!deprecated) Object.assign(item, isUpsellFee === undefined ? {} : { isUpsellFee }, stayIndex === undefined ? {} : { stayIndex });
    const answer = await this.openApi({
      operation: deprecated ? 'addInvoiceItemDeprecated' : 'addInvoiceItem',
      kind: 'write',
      priority: 'checkout',
      method: 'POST',
      path: deprecated ? `/reservations/${enc(reservationId)}/invoiceItems` : `/invoice-items/reservation/${enc(reservationId)}`,
      json: item,
    });
    return readInvoiceItemAnswer(this.expect(answer, 'addInvoiceItem'));
  }

  /** The listing's days from `startDate` to `endDate` included; null for an unknown listing. Anonymous: a public read. */
  async getCalendar(listingId: string, startDate: string, endDate: string): Promise<CalendarDay[] | null> {
    const answer = await this.openApi({
      operation: 'getCalendar',
      kind: 'read',
      priority: 'anonymous',
      method: 'GET',
      path: `/availability-pricing/api/calendar/listings/${enc(listingId)}`,
      query: { startDate, endDate, includeAllotment: 'true' },
    });
    if (answer.status === 404) return null;
    const data = this.expect(answer, 'getCalendar') as
      UpstreamCalendarDay[] | { days?: UpstreamCalendarDay[]; data?: { days?: UpstreamCalendarDay[] } | UpstreamCalendarDay[] };
    // The reference describes one day; the platform answers a list, bare or under `days` / `data.days`.
    const days = Array.isArray(data) ? data : Array.isArray(data?.data) ? data.data : (data?.days ?? data?.data?.days ?? []);
    return days.map(calendarDayOf);
  }

  /** A quote for a stay. Anonymous: browsing dates must not take a checkout's share of the budget. */
  async createQuote(request: QuoteRequest): Promise<QuoteOffer | null> {
    const answer = await this.openApi({
      operation: 'createQuote',
      kind: 'write',
      priority: 'anonymous',
      method: 'POST',
      path: '/quotes',
      json: request,
      bookingAnswer: true,
    });
    if (answer.status === 404) return null;
    this.refuseBooking(answer, 'createQuote', answer.refusal);
    return quoteOf(this.expect(answer, 'createQuote') as UpstreamQuote);
  }

  /** The upstream quote; null when unknown or expired (410). Its `reservationId` tells whether it was booked. */
  async getQuote(quoteId: string, priority: Priority = 'checkout'): Promise<QuoteOffer | null> {
    const answer = await this.openApi({ operation: 'getQuote', kind: 'read', priority, method: 'GET', path: `/quotes/${enc(quoteId)}` });
    if (answer.status === 404 || answer.status === 410) return null;
    return quoteOf(this.expect(answer, 'getQuote') as UpstreamQuote);
  }

  /** Creates the guest, or answers the one the platform already has with this email (merged). */
  /** `priority`: whose budget the write spends; a booking before its card is on file is anonymous traffic (docs/product-spec.md §7). */
  async createGuest(request: GuestRequest, priority: Priority): Promise<PlatformGuest> {
    const answer = await this.openApi({
      operation: 'createGuest',
      kind: 'write',
      priority,
      method: 'POST',
      path: '/guests-crud',
      json: request,
    });
    return guestOf(this.expect(answer, 'createGuest') as UpstreamGuest);
  }

  /**
   * The guests the platform has with this email: the re-read that settles a guest create whose
   * answer was lost (docs/upstream.md). `GET /guests-crud` with `columns` and a `filters` object in
   * the form of the reference's own example; its `results` are read as a list or as an object of
   * guests (the reference types them `object`), and kept only where the email matches, so a
   * platform that ignored the filter is not taken at its first page's word.
   */
  async findGuestsByEmail(email: string, priority: Priority = 'anonymous'): Promise<PlatformGuest[]> {
    const answer = await this.openApi({
      operation: 'findGuestsByEmail',
      kind: 'read',
      priority,
      method: 'GET',
      path: '/guests-crud',
      query: { columns: '_id email firstName lastName', filters: JSON.stringify({ email: { '@in': [email] } }), limit: '25' },
    });
    const data = this.expect(answer, 'findGuestsByEmail') as { results?: unknown } | null;
    const results: unknown[] = Array.isArray(data?.results) ? data.results : Object.values(data?.results ?? {});
    const wanted = email.trim().toLowerCase();
    return results
      .filter(
        (guest): guest is UpstreamGuest =>
          typeof (guest as UpstreamGuest | null)?._id === 'string' && (guest as UpstreamGuest).email?.trim().toLowerCase() === wanted,
      )
      .map(guestOf);
  }

  async createReservationFromQuote(request: ReservationFromQuoteRequest, priority: Priority): Promise<ReservationHold> {
    const answer = await this.openApi({
      operation: 'createReservationFromQuote',
      kind: 'write',
      priority,
      method: 'POST',
      path: '/reservations-v3/quote',
      json: request,
      bookingAnswer: true,
    });
    this.refuseBooking(answer, 'createReservationFromQuote', answer.refusal);
    return holdOf(this.expect(answer, 'createReservationFromQuote') as UpstreamReservationV3);
  }

  async setReservationStatus(reservationId: string, status: 'confirmed' | 'canceled'): Promise<ReservationStatusChange> {
    const answer = await this.openApi({
      operation: 'setReservationStatus',
      kind: 'write',
      priority: 'checkout',
      method: 'PUT',
      path: `/reservations-v3/${enc(reservationId)}/status`,
      json: { status },
    });
    return statusChangeOf(this.expect(answer, 'setReservationStatus') as UpstreamReservationStatus);
  }

  /** A refusal of the dates or terms, in words the guest can act on; the platform's own words go to the log only. */
  private refuseBooking(answer: UpstreamAnswer, operation: string, refusal: BookingRefusal | null): void {
    if (!refusal) return;
    const words = scrubText(platformWords(answer)).slice(0, 300);
    this.logger.warn(
      { operation, upstreamStatus: answer.status, upstreamRequestId: answer.requestId, refusal, platformSaid: words },
      'the platform refused a booking',
    );
    throw new UpstreamError(refusal, refusalDetail(refusal, words), {
      operation,
      upstreamStatus: answer.status,
      upstreamRequestId: answer.requestId,
      maybeSent: true,
      upstreamMessage: words || undefined,
    });
  }

  /**
   * The tokenization host: no Authorization header (the Open API token is never sent where it is
   * not needed), not counted against the Open API budget, never retried (a card submission is a write).
   */
  async tokenizeCard(request: TokenizeRequest): Promise<TokenizeAnswer> {
    return readTokenizeAnswer(
      await this.http.send({ operation: 'tokenizeCard', host: 'pay', method: 'POST', path: '/api/tokenize/v2', json: request }),
    );
  }

  private expect(answer: UpstreamAnswer, operation: string): unknown {
    if (answer.status >= 200 && answer.status < 300) return answer.data;
    const unavailable = answer.status >= 500;
    throw new UpstreamError(
      unavailable ? 'upstream_unavailable' : 'upstream_error',
      `The booking platform refused the request (${answer.status}).`,
      {
        operation,
        upstreamStatus: answer.status,
        upstreamRequestId: answer.requestId,
        maybeSent: true,
        upstreamMessage: upstreamMessage(answer.data),
        // Like a timeout: the site is told when trying again makes sense.
        retryAfterSeconds: unavailable ? (answer.retryAfterSeconds ?? 1) : undefined,
      },
    );
  }

  private async openApi(call: OpenApiCall): Promise<UpstreamAnswer & { refusal: BookingRefusal | null }> {
    const { callDeadlineMs } = this.config.get('guesty', { infer: true });
    const deadline = Date.now() + (call.kind === 'read' ? callDeadlineMs : callDeadlineMs * 1.5);
    let token: AccessToken = await this.tokens.current();
    let reminted = false;
    for (let attempt = 0; ; attempt += 1) {
      await this.slot(call.priority, deadline);
      // A write never leaves past its deadline (a stalled loop, a frozen process): the journal's settle horizon counts on it.
      if (call.kind === 'write' && Date.now() > deadline) {
        throw new UpstreamError(
          'upstream_unavailable',
          'The booking platform could not be reached in time; the request was not sent. Please try again shortly.',
          {
            operation: call.operation,
            maybeSent: false,
            retryAfterSeconds: 1,
          },
        );
      }
      let answer: UpstreamAnswer;
      try {
        answer = await this.http.send({ ...call, host: 'api', headers: { Authorization: `Bearer ${token.value}` } });
      } catch (error) {
        const retryable = error instanceof UpstreamError && (call.kind === 'read' || !error.maybeSent);
        if (retryable && (await this.backoff(attempt, deadline))) continue;
        throw error;
      }
      if (answer.status >= 200 && answer.status < 300) this.proven = { token: token.value, at: Date.now() };
      const proven = this.proven?.token === token.value && Date.now() - this.proven.at < TOKEN_PROVEN_MS;
      const refusal = call.bookingAnswer ? bookingRefusal(answer, proven) : null;
      if (refusal) return { ...answer, refusal };
      if (answer.status === 401 || answer.status === 403) {
        // Both may mean "this token": replace it at most once for this call, then it is a real refusal.
        const replacement = reminted ? null : await this.tokens.rejected(token);
        if (replacement) {
          token = replacement;
          reminted = true;
          continue;
        }
        if (reminted) await this.tokens.rejected(token);
        throw new UpstreamError('upstream_forbidden', 'The booking platform refused the service access to this resource.', {
          operation: call.operation,
          upstreamStatus: answer.status,
          upstreamRequestId: answer.requestId,
          maybeSent: true,
        });
      }
      if (answer.status === 429) {
        await this.limiter.pauseAll(answer.retryAfterSeconds ?? 1);
        // A 429 was refused before any effect, so even a write may go again after the pause.
        if (Date.now() + (answer.retryAfterSeconds ?? 1) * 1000 < deadline) continue;
        throw new UpstreamError('rate_limited', 'The booking platform is busy; try again shortly.', {
          operation: call.operation,
          upstreamStatus: 429,
          upstreamRequestId: answer.requestId,
          maybeSent: true,
          status: 503,
          retryAfterSeconds: answer.retryAfterSeconds ?? 1,
        });
      }
      if (answer.status >= 500 && call.kind === 'read' && (await this.backoff(attempt, deadline))) continue;
      return { ...answer, refusal: null };
    }
  }

  /**
   * Holds a slot of the outbound budget fresh enough to send on: one granted before a stall of this
   * replica's loop is taken again, so late sends never crowd one of the platform's windows.
   */
  private async slot(priority: Priority, deadline: number): Promise<void> {
    for (;;) {
      const grant = await inSpan('upstream rate limit wait', { 'upstream.priority': priority }, () =>
        this.limiter.acquire(priority, deadline),
      );
      if (!this.limiter.expired(grant)) return;
    }
  }

  /** Waits before the next attempt when the deadline leaves room for it; false when it does not. */
  private async backoff(attempt: number, deadline: number): Promise<boolean> {
    const delay = backoffDelayMs(attempt);
    if (attempt >= 4 || Date.now() + delay >= deadline) return false;
    await sleep(delay);
    return true;
  }
}
