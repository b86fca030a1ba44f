import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { Clock } from '../primitives/clock';
import { DomainError } from '../common/errors/domain-error';
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
  UpstreamReservationRead,
  UpstreamGuestRead,
  UpstreamGuestRow,
  UpstreamFolioOverview,
  UpstreamFolioOverviewLine,
  UpstreamFolioItems,
  UpstreamPayment,
} from './guesty.types';
import { OutboundRateLimiter, Priority } from './outbound-rate-limiter';
import { backoffDelayMs, sleep } from './retry-policy';
import { ReadBatches } from './read-batches';
import { READ_QUERIES } from './platform-read-queries';
import { readTokenizeAnswer, TokenizeAnswer } from './tokenize-answer';
import { UpstreamError } from './upstream-error';
import { UnexpectedAnswer, UnexpectedAnswers } from './unexpected-answers';
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
  InvoiceLine,
  ReservationHold,
  ReservationMoney,
  ReservationStatusChange,
  RESERVATION_STATUSES,
  ReservationStatusRead,
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
  reservationFromRead,
  methodsPaying,
  moneyOf,
  folioLinesOf,
  MoneyReading,
  PaymentsListed,
  paymentSummaryOf,
} from './platform-readings';

type Kind = 'read' | 'write';
export type { Priority };

interface OpenApiCall extends Omit<UpstreamCall, 'host' | 'headers'> {
  kind: Kind;
  priority: Priority;
  /** A booking call: a refusal of the dates or terms is an answer, even as 401 (never a token problem). */
  bookingAnswer?: boolean;
  /** Told once the call first holds its slot of the outbound budget (ReadBatches keeps a batch open until then). */
  granted?: () => void;
  /** Sent once, never again on a 5xx or a timeout: the go-live check judges the first answer and counts each call. */
  once?: boolean;
  /** Told before each send, re-mints included. */
  sending?: () => void;
}

const enc = encodeURIComponent;

/** What a route may read of a reservation besides its status, dates and guest id (GuestyClient.getReservation). */
/**
 * What a route reads of a reservation beside its core (status, stay, guest id, code): the guest's
 * email, its money, its payments, its folio, or the cards on file for it (the methods that pay it).
 */
export type ReservationPart = 'guest' | 'money' | 'payments' | 'folio' | 'cards';

/** A reservation a session open found; `complete`: its read carried its guest's email and money (the legacy read). */
export interface FoundReservation {
  reservation: PlatformReservation;
  complete: boolean;
}

/** A guest id of the platform's form that no guest has: what a read alike asks for. */
const STAND_IN_GUEST = '000000000000000000000000';

function upstreamMessage(data: unknown): string | undefined {
  const message = (data as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? scrubText(message).slice(0, 300) : undefined;
}

/** The fields a 400's body names (`details` or `errors`, each with a `field`), as plain names: never the body itself. */
function namedFields(data: unknown): string | undefined {
  const body = data as { details?: unknown; errors?: unknown; field?: unknown } | null;
  const problems = [body?.details, body?.errors].find(Array.isArray) ?? [body];
  const names = problems
    .map((problem) => (problem as { field?: unknown; path?: unknown } | null)?.field ?? (problem as { path?: unknown } | null)?.path)
    .filter((name): name is string => typeof name === 'string' && /^[\w.[\]-]{1,60}$/.test(name));
  return names.length > 0 ? names.join(', ') : undefined;
}

/** A guest's email under either name the platform's documents give it: `email` (the single read's schema) or `guestEmail` (the guest reports' column). */
function emailOf(guest: UpstreamGuestRead | null | undefined): string | undefined {
  return [guest?.email, guest?.guestEmail].find((value) => typeof value === 'string' && value.trim() !== '');
}

/** The guest list's `results`: a list, or rows keyed by anything (the reference types it `object`). */
function guestRowsOf(data: unknown): UpstreamGuestRow[] | undefined {
  const results = (data as { results?: unknown } | null)?.results;
  if (Array.isArray(results)) return results as UpstreamGuestRow[];
  return results !== null && typeof results === 'object' ? (Object.values(results) as UpstreamGuestRow[]) : undefined;
}

/** How long after a call the same token answered, a 4xx on a booking call is the booking's, not the token's. */
const TOKEN_PROVEN_MS = 60_000;

export type BookingRefusal = 'dates_unavailable' | 'stay_not_allowed' | 'booking_refused';

function platformWords(answer: UpstreamAnswer): string {
  const data = answer.data as { message?: unknown; code?: unknown; error?: { message?: unknown; code?: unknown } } | null;
  return [data?.message, data?.code, data?.error?.message, data?.error?.code].filter((part) => typeof part === 'string').join(' ');
}

/**
 * A 4xx answer to a quote or reservation create: the booking's refusal, or null for the token's.
 * The reference answers taken dates "decline (401)", and a 401 may say just "Unauthorized", so the
 * words decide; words naming neither side make it the booking's only with a token proven good
 * within a minute (docs/product-spec.md §3.1).
 */
export function bookingRefusal(answer: UpstreamAnswer, tokenProven: boolean): BookingRefusal | null {
  if (answer.status < 400 || answer.status >= 500 || [404, 410, 429].includes(answer.status)) return null;
  const words = platformWords(answer);
  if (/token|jwt|bearer|credential|permission|inactive/i.test(words)) return null;
  if (/availab|calendar|blocked|booked|occupied/i.test(words)) return 'dates_unavailable';
  if (/nights|terms|guests|arrival|departure|stay/i.test(words)) return 'stay_not_allowed';
  return tokenProven ? 'booking_refused' : null;
}

/** Which of the property's terms the platform's words of a terms refusal name, if any. */
export function refusedTerm(words: string): 'guests' | 'arrival' | 'nights' | null {
  if (/guests/i.test(words)) return 'guests';
  if (/arrival|departure/i.test(words)) return 'arrival';
  return /nights/i.test(words) ? 'nights' : null;
}

const TERMS_DETAILS = {
  guests: 'This stay does not meet the property’s terms: too many guests for this property.',
  arrival: 'This stay does not meet the property’s terms: check-in or check-out is not allowed on these dates.',
  nights: 'This stay does not meet the property’s terms: the number of nights is outside what the property allows.',
} as const;

/** What the guest is told of a refusal: the product's words; the platform's go to the log. */
function refusalDetail(refusal: BookingRefusal, words: string): string {
  if (refusal === 'dates_unavailable') return 'These dates are not available for this listing. Please choose other dates.';
  if (refusal === 'booking_refused')
    return 'The property’s booking system declined this booking. Please try other dates, or contact the property.';
  const term = refusedTerm(words);
  return term ? TERMS_DETAILS[term] : 'This stay does not meet the property’s terms.';
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
  /** The last guest read found the email only in the guest list: a read alike reads the list too. */
  private guestEmailListed = false;
  /** Reservation reads and folio overviews of concurrent requests, sent together (docs/upstream.md, "The surface of 2027"). */
  private readonly reservationReads = new ReadBatches<UpstreamReservationRead | null>(
    (ids, priority, granted) => this.readReservations(ids, priority, granted),
    10,
  );
  private readonly overviewReads = new ReadBatches<UpstreamFolioOverviewLine>(
    (ids, priority, granted) => this.readFolioOverviews(ids, priority, granted),
    200,
  );

  constructor(
    private readonly http: UpstreamHttp,
    private readonly tokens: AccessTokens,
    private readonly limiter: OutboundRateLimiter,
    private readonly config: ConfigService<AppConfig, true>,
    private readonly clock: Clock,
    private readonly unexpectedAnswers: UnexpectedAnswers,
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
  async getPaymentProvider(listingId: string, priority: Priority = 'checkout'): Promise<PaymentProvider | null> {
    const answer = await this.openApi({
      operation: 'getPaymentProvider',
      kind: 'read',
      priority,
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

  /**
   * A reservation as the platform holds it now, with the parts a route asks for (`guest`, `money`,
   * `folio`). The legacy read answers all in one call; the current surface reads Reservations V3,
   * then each part asked for in parallel (docs/upstream.md, "The surface of 2027"). `booker`: a
   * guest and code the caller knows, so the cards are read beside Reservations V3.
   */
  async getReservation(
    reservationId: string,
    priority: Priority = 'checkout',
    parts: readonly ReservationPart[] = ['guest', 'money'],
    booker?: { guestId: string; confirmationCode?: string },
  ): Promise<PlatformReservation | null> {
    if (this.surfaceOf('reservations') === 'legacy') {
      const reservation = await this.getLegacyReservation(reservationId, priority);
      // The legacy read's payments name the method each charges: the cards on file, with no other call.
      return reservation && parts.includes('cards') ? { ...reservation, cardsOnFile: methodsPaying(reservation.money) } : reservation;
    }
    const early =
      parts.includes('cards') && booker
        ? this.listPaymentMethods(booker.guestId, reservationId, priority, booker.confirmationCode)
        : undefined;
    // Its failure is answered below, once the reservation read says whether there is a reservation at all.
    early?.catch(() => undefined);
    const read = await this.reservationReads.load(reservationId, priority);
    if (!read) return null;
    // The guest's email and the cards are read by the booker's id: without it there is no "no email" nor "no card".
    if ((parts.includes('guest') || (parts.includes('cards') && !early)) && !read.bookerId) {
      throw this.unexpected({ operation: 'getReservationsV3', missing: 'bookerId', reservationId });
    }
    const [guestEmail, money, folio, cards] = await Promise.all([
      parts.includes('guest') && read.bookerId ? this.readGuestEmail(read.bookerId, priority) : undefined,
      parts.includes('money')
        ? this.readMoney(reservationId, priority)
        : parts.includes('payments')
          ? this.readPayments(reservationId, priority).then((listed) => this.counted(reservationId, moneyOf(undefined, listed)))
          : undefined,
      parts.includes('folio') ? this.readFolio(reservationId, priority) : undefined,
      // The published way to the card on file (a payment's paymentMethodId is not published on this surface).
      early ??
        (parts.includes('cards') && read.bookerId
          ? this.listPaymentMethods(read.bookerId, reservationId, priority, read.confirmationCode)
          : undefined),
    ]);
    const reservation = reservationFromRead(read, {
      guestEmail,
      money: money || folio ? { ...(money ?? {}), ...(folio ? { folio } : {}) } : undefined,
    });
    return parts.includes('cards')
      ? { ...reservation, cardsOnFile: (cards ?? []).filter((method) => method.status !== 'INACTIVE').map((method) => method.id) }
      : reservation;
  }

  /**
   * A session open's first read: the reservation (its status, code, guest and stay), or null where
   * the platform has none by that id. The legacy read carries its guest's email and money too.
   */
  async findReservation(reservationId: string, priority: Priority): Promise<FoundReservation | null> {
    if (this.surfaceOf('reservations') === 'legacy') {
      const reservation = await this.getLegacyReservation(reservationId, priority);
      return reservation && { reservation, complete: true };
    }
    const read = await this.reservationReads.load(reservationId, priority);
    return read && { reservation: reservationFromRead(read, {}), complete: false };
  }

  /** The guest's email of a reservation found: read by its booker's id, unless its read carried it. */
  async guestEmailOf({ reservation, complete }: FoundReservation, priority: Priority): Promise<string | undefined> {
    if (complete) return reservation.guestEmail;
    if (!reservation.guestId) throw this.unexpected({ operation: 'getReservationsV3', missing: 'bookerId', reservationId: reservation.id });
    return this.readGuestEmail(reservation.guestId, priority);
  }

  /**
   * What reading a guest's email costs, spent where there is no guest to read (an id the platform
   * does not know, a code that is not the reservation's): the same calls, answers unread, so a
   * made-up id and a wrong email cost the platform and the guest alike (docs/product-spec.md §7).
   */
  async guestReadAlike(priority: Priority): Promise<void> {
    if (this.surfaceOf('reservations') === 'legacy') return;
    const single = { operation: 'getGuest', kind: 'read', priority, method: 'GET', query: READ_QUERIES.guest() } as const;
    await this.openApi({ ...single, path: `/guests-crud/${STAND_IN_GUEST}` });
    if (this.guestEmailListed) {
      await this.openApi({
        ...single,
        operation: 'listGuestEmail',
        path: '/guests-crud',
        query: READ_QUERIES.guestListById(STAND_IN_GUEST),
      });
    }
  }

  /** A reservation found, with its money: what a session opens on (one set of reads, side by side). */
  async withMoney(found: FoundReservation, priority: Priority): Promise<PlatformReservation> {
    if (found.complete) return found.reservation;
    return { ...found.reservation, money: await this.readMoney(found.reservation.id, priority) };
  }

  /**
   * Up to 10 reservations in one `GET /reservations-v3` (the reference's limit); the answer is a
   * bare array, or a `{results}` wrapper. An id answered with nothing is only logged: a published
   * support case shows this read answering `[]` for a reservation that exists, so the product never
   * calls it "not found" on this read's word.
   */
  async readReservations(
    reservationIds: string[],
    priority: Priority,
    granted?: () => void,
  ): Promise<(UpstreamReservationRead | null | UpstreamError)[]> {
    if (reservationIds.length > 10) throw new RangeError('reservations-v3 reads at most 10 reservations a call');
    const answer = await this.openApi({
      ...(granted ? { granted } : {}),
      operation: 'getReservationsV3',
      kind: 'read',
      priority,
      method: 'GET',
      path: '/reservations-v3',
      query: READ_QUERIES.reservationsV3(reservationIds),
    });
    const items = this.listOf<UpstreamReservationRead>(answer, 'getReservationsV3');
    return reservationIds.map((id) => {
      const found = items.find((item) => item?._id === id) ?? null;
      // A reservation without its status or code cannot be told held, paid or cancelled, nor carry a card.
      const missing = found && ['status', 'confirmationCode'].find((field) => typeof found[field as keyof typeof found] !== 'string');
      if (missing)
        return this.unexpected({ operation: 'getReservationsV3', missing, reservationId: id, upstreamRequestId: answer.requestId });
      if (!found) {
        this.logger.warn(
          { operation: 'getReservationsV3', reservationId: id, upstreamRequestId: answer.requestId },
          'the current reservation read answered no reservation for this id (the platform is known to answer [] for some existing ones; GUESTY_API_SURFACE=legacy reads through the legacy endpoint until 2027-03-01)',
        );
      }
      return found;
    });
  }

  /**
   * The guest's email: `GET /guests-crud/{id}?fields=email` (the reference requires `fields`), else
   * the guest list's row of that id (the guide's `guestEmail` column, which it says only the list
   * carries), under either name. Not readable is the platform answering unexpectedly, never "no email".
   */
  private async readGuestEmail(guestId: string, priority: Priority): Promise<string> {
    const answer = await this.openApi({
      operation: 'getGuest',
      kind: 'read',
      priority,
      method: 'GET',
      path: `/guests-crud/${enc(guestId)}`,
      query: READ_QUERIES.guest(),
    });
    const single = emailOf(this.relied(answer, 'getGuest') as UpstreamGuestRead | null);
    this.guestEmailListed = single === undefined;
    return single ?? (await this.listedGuestEmail(guestId, priority));
  }

  /**
   * The email on the guest list's row for this id. How the list filters by id is not published: the
   * filter is sent, and only the row naming this guest (`_id` or `id`) is read, honoured or not.
   */
  private async listedGuestEmail(guestId: string, priority: Priority): Promise<string> {
    const answer = await this.openApi({
      operation: 'listGuestEmail',
      kind: 'read',
      priority,
      method: 'GET',
      path: '/guests-crud',
      query: READ_QUERIES.guestListById(guestId),
    });
    const rows = guestRowsOf(this.relied(answer, 'listGuestEmail'));
    const row = rows?.find((candidate) => candidate?._id === guestId || candidate?.id === guestId);
    const email = emailOf(row);
    if (email !== undefined) return email;
    const missing = !rows ? 'results' : !row ? "the guest's row" : 'guestEmail';
    throw this.unexpected({ operation: 'listGuestEmail', missing, guestId, upstreamRequestId: answer.requestId });
  }

  /**
   * What a reservation made a moment ago owes: its folio's total (the overview), nothing paid yet (no
   * card was on it to pay with), unless the platform states a balance; the legacy read's balance.
   */
  async balanceOfNewReservation(reservationId: string, priority: Priority): Promise<{ amount?: number; currency?: string }> {
    if (this.surfaceOf('reservations') === 'legacy') {
      const money = (await this.getLegacyReservation(reservationId, priority))?.money;
      return { amount: money?.balanceDue, currency: money?.currency };
    }
    const money = this.counted(reservationId, moneyOf(await this.readFolioOverview(reservationId, priority), { payments: [] }));
    return { amount: money.balanceDue, currency: money.currency };
  }

  /** Totals from the folio overview and the payments list, read together. */
  private async readMoney(reservationId: string, priority: Priority): Promise<ReservationMoney> {
    const [overview, listed] = await Promise.all([
      this.readFolioOverview(reservationId, priority),
      this.readPayments(reservationId, priority),
    ]);
    return this.counted(reservationId, moneyOf(overview, listed));
  }

  /**
   * The money as read, once the reading is one the product may rely on: the platform's summary and
   * the product's count disagreeing is logged with both figures; a field it needed and could not read
   * is a loud 503, never a guess (a refund without an amount, a payment in an unknown status).
   */
  private counted(reservationId: string, { money, unreadable, disagreements }: MoneyReading): ReservationMoney {
    for (const { figure, platform, counted } of disagreements) {
      this.logger.warn(
        { operation: 'listPayments', reservationId, figure, platform, counted },
        "the platform's payment summary and the product's count of its payments disagree; the platform's figure is used",
      );
    }
    if (unreadable.length === 0) return money;
    const operation = unreadable[0].answer === 'payments' ? 'listPayments' : 'getFolioOverview';
    throw this.unexpected({ operation, missing: unreadable.map((entry) => entry.what).join('; '), reservationId });
  }

  private readFolioOverview(reservationId: string, priority: Priority): Promise<UpstreamFolioOverviewLine> {
    return this.overviewReads.load(reservationId, priority);
  }

  /** Up to 200 reservations' totals in one `GET /guest-folio/overview` (ids comma-separated, as the reference has it). */
  private async readFolioOverviews(
    reservationIds: string[],
    priority: Priority,
    granted?: () => void,
  ): Promise<(UpstreamFolioOverviewLine | UpstreamError)[]> {
    const answer = await this.openApi({
      ...(granted ? { granted } : {}),
      operation: 'getFolioOverview',
      kind: 'read',
      priority,
      method: 'GET',
      path: '/guest-folio/overview',
      query: READ_QUERIES.folioOverview(reservationIds),
    });
    const data = this.relied(answer, 'getFolioOverview') as UpstreamFolioOverview | null;
    if (!Array.isArray(data?.results))
      throw this.unexpected({ operation: 'getFolioOverview', missing: 'results', upstreamRequestId: answer.requestId });
    // Each id read here is a reservation the platform holds: one without its line (or in `notFound`) has no total to trust.
    return reservationIds.map(
      (id) =>
        data.results!.find((line) => line?.reservationId === id) ??
        this.unexpected({
          operation: 'getFolioOverview',
          missing: "the reservation's line",
          reservationId: id,
          upstreamRequestId: answer.requestId,
        }),
    );
  }

  /**
   * Every payment of the reservation (`GET /payments?reservationId=`), holds and captures included: a
   * bare list, or a wrapper with the list (its key unpublished: `results`, `payments` or `data`) beside
   * the reservation's payment summary fields, read where present (their names inferred).
   */
  async readPayments(reservationId: string, priority: Priority): Promise<PaymentsListed> {
    const answer = await this.openApi({
      operation: 'listPayments',
      kind: 'read',
      priority,
      method: 'GET',
      path: '/payments',
      query: READ_QUERIES.payments(reservationId),
    });
    const list = this.listOf<UpstreamPayment>(answer, 'listPayments', ['results', 'payments', 'data']);
    // A payment whose status or amount cannot be read would count as nothing paid.
    for (const payment of list) {
      const missing = typeof payment?.status !== 'string' ? 'status' : typeof payment.amount !== 'number' ? 'amount' : undefined;
      if (missing) {
        throw this.unexpected({
          operation: 'listPayments',
          missing: `a payment's ${missing}`,
          reservationId,
          upstreamRequestId: answer.requestId,
        });
      }
    }
    return { payments: list.filter((payment) => typeof payment?._id === 'string'), summary: paymentSummaryOf(answer.data) };
  }

  private async readFolio(reservationId: string, priority: Priority): Promise<InvoiceLine[]> {
    const answer = await this.openApi({
      operation: 'getFolioInvoiceItems',
      kind: 'read',
      priority,
      method: 'GET',
      path: '/guest-folio/invoice-items',
      query: READ_QUERIES.folioItems(reservationId),
    });
    const results = this.listOf<UpstreamFolioItems>(answer, 'getFolioInvoiceItems');
    const folio = results.find((entry) => entry?.reservationId === reservationId);
    if (!folio) {
      throw this.unexpected({
        operation: 'getFolioInvoiceItems',
        missing: "the reservation's items",
        reservationId,
        upstreamRequestId: answer.requestId,
      });
    }
    return folioLinesOf(folio);
  }

  private async getLegacyReservation(reservationId: string, priority: Priority): Promise<PlatformReservation | null> {
    const answer = await this.openApi({
      operation: 'getReservation',
      kind: 'read',
      priority,
      method: 'GET',
      path: `/reservations/${enc(reservationId)}`,
      query: READ_QUERIES.legacyReservation(),
    });
    return answer.status === 404 ? null : reservationOf(this.expect(answer, 'getReservation') as UpstreamReservation);
  }

  /** The reservation's confirmation code, which the current attach links the card by and a method's list item names. */
  async confirmationCodeOf(reservationId: string, priority: Priority = 'checkout'): Promise<string | undefined> {
    if (this.surfaceOf('reservations') === 'legacy') return (await this.getLegacyReservation(reservationId, priority))?.confirmationCode;
    return (await this.reservationReads.load(reservationId, priority))?.confirmationCode;
  }

  /**
   * The reservation's status as the platform shows it now, read just before a write that depends on
   * it (a booking's confirmation). A status outside the reference's enum, none, or no reservation
   * where one was made is loud (`platform_answer_unexpected`), never guessed.
   */
  async reservationStatusOf(reservationId: string, priority: Priority = 'checkout'): Promise<ReservationStatusRead> {
    const legacy = this.surfaceOf('reservations') === 'legacy';
    const read = legacy
      ? await this.getLegacyReservation(reservationId, priority)
      : await this.reservationReads.load(reservationId, priority);
    return this.statusRelied(read, reservationId);
  }

  /**
   * A reservation's status as a decision rests on it (a booking's hold before its card, its
   * confirmation): a reservation the read did not answer (the current read answers `[]` for some
   * that exist, docs/upstream.md), a missing status or one outside the reference's enum is loud,
   * never read as ended nor as held.
   */
  statusRelied(read: { status?: string } | null, reservationId: string): ReservationStatusRead {
    const operation = this.surfaceOf('reservations') === 'legacy' ? 'getReservation' : 'getReservationsV3';
    const status = read?.status;
    if (status === undefined) {
      throw this.unexpected({ operation, missing: read ? 'the reservation’s status' : 'the reservation', reservationId });
    }
    if (!(RESERVATION_STATUSES as readonly string[]).includes(status)) {
      throw this.unexpected({ operation, unknown: `status ${JSON.stringify(String(status).slice(0, 40))}`, reservationId });
    }
    return status as ReservationStatusRead;
  }

  /**
   * Attaches the card: `POST /payment-methods` with the guest, the token, the provider and the
   * reservation's confirmation code (current), or `POST /guests/{id}/payment-methods` (legacy). The
   * code is the caller's to know before the write (a read here would delay a send already fenced).
   */
  async attachPaymentMethod(request: AttachPaymentMethodRequest): Promise<PaymentMethodOnFile> {
    const legacy = this.surfaceOf('paymentMethods') === 'legacy';
    const { confirmationCode } = request;
    if (!legacy && !confirmationCode) {
      throw new UpstreamError('upstream_error', 'The reservation’s confirmation code is not known; nothing was attached.', {
        operation: 'attachPaymentMethod',
        maybeSent: false,
      });
    }
    const answer = await this.openApi({
      operation: 'attachPaymentMethod',
      kind: 'write',
      priority: 'checkout',
      method: 'POST',
      path: legacy ? `/guests/${enc(request.guestId)}/payment-methods` : '/payment-methods',
      json: legacy
        ? { _id: request.tokenId, paymentProviderId: request.paymentProviderId, reservationId: request.reservationId, reuse: false }
        : { guestId: request.guestId, _id: request.tokenId, paymentProviderId: request.paymentProviderId, confirmationCode, reuse: false },
    });
    return attachedMethodOf(this.expect(answer, 'attachPaymentMethod') as UpstreamAttachedPaymentMethod);
  }

  /**
   * The methods on this reservation: `GET /payment-methods?reservationId=` (current), or the
   * guest's list with `reuse=false` (legacy, where `reuse` defaults to true). The platform merges
   * guests by email, so a list may carry the guest's cards of other bookings: a method counts only
   * when it names this reservation by id or confirmation code, filter honoured or not
   * (docs/upstream.md).
   */
  async listPaymentMethods(
    guestId: string,
    reservationId: string,
    priority: Priority = 'checkout',
    confirmationCode?: string,
  ): Promise<PaymentMethodOnFile[]> {
    const legacy = this.surfaceOf('paymentMethods') === 'legacy';
    const answer = await this.openApi({
      operation: 'listPaymentMethods',
      kind: 'read',
      priority,
      method: 'GET',
      path: legacy ? `/guests/${enc(guestId)}/payment-methods` : '/payment-methods',
      query: READ_QUERIES.paymentMethods(legacy ? 'legacy' : 'current', reservationId),
    });
    const methods = this.listOf<UpstreamPaymentMethod>(answer, 'listPaymentMethods');
    // A method naming no booking cannot be told this reservation's card or another's: "no card" would not be true.
    if (methods.some((method) => !method?.reservationId && !method?.confirmationCode)) {
      throw this.unexpected({
        operation: 'listPaymentMethods',
        missing: "a method's reservationId or confirmationCode",
        reservationId,
        upstreamRequestId: answer.requestId,
      });
    }
    // The code, when the caller does not know it, is read only if an item names a code and not this id.
    const code =
      confirmationCode ??
      (methods.some((method) => method.reservationId !== reservationId && method.confirmationCode)
        ? await this.confirmationCodeOf(reservationId, priority)
        : undefined);
    return methods
      .filter((method) => method.reservationId === reservationId || (code !== undefined && method.confirmationCode === code))
      .map((method) => methodOnFileOf({ ...method, reservationId }));
  }

  /** Each resource on its own switch (docs/product-spec.md §2): reservations may move on while cards stay, or the reverse. */
  private surfaceOf(resource: 'reservations' | 'paymentMethods'): 'current' | 'legacy' {
    const guesty = this.config.get('guesty', { infer: true });
    return resource === 'reservations' ? guesty.reservationsSurface : guesty.paymentMethodsSurface;
  }

  /**
   * One GET as the platform answers it, status and body unread, for the go-live check
   * (platform-check/): the shared token and budget as every call, but sent once and never retried.
   */
  readAsAnswered(
    call: { operation: string; path: string; query?: Record<string, string | string[]> },
    sending?: () => void,
  ): Promise<UpstreamAnswer> {
    return this.openApi({ ...call, kind: 'read', priority: 'checkout', method: 'GET', once: true, ...(sending ? { sending } : {}) });
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
   * The guests the platform has with this email, the re-read that settles a guest create whose
   * answer was lost (docs/upstream.md). `results` is read as a list or an object (the reference
   * types it `object`), and kept only where the email matches, so a platform that ignored the
   * filter is not taken at its first page's word.
   */
  async findGuestsByEmail(email: string, priority: Priority = 'anonymous'): Promise<PlatformGuest[]> {
    const answer = await this.openApi({
      operation: 'findGuestsByEmail',
      kind: 'read',
      priority,
      method: 'GET',
      path: '/guests-crud',
      query: {
        // The column as the guest reports guide publishes it; the answer's key is read under either name.
        columns: '_id guestEmail firstName lastName',
        filters: JSON.stringify({ email: { '@in': [email] } }),
        limit: '25',
      },
    });
    const rows = guestRowsOf(this.expect(answer, 'findGuestsByEmail')) ?? [];
    const wanted = email.trim().toLowerCase();
    return rows
      .filter((guest) => typeof guest?._id === 'string' && emailOf(guest)?.trim().toLowerCase() === wanted)
      .map((guest) => guestOf({ _id: guest._id!, email: emailOf(guest) }));
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

  /**
   * The data of a read the product relies on. A 4xx left after the token and the budget had their
   * say (a 404 where the reservation exists, a 400 naming a field) is the platform answering
   * unexpectedly, never "none" or "not found"; a 5xx is unavailable, as for any call.
   */
  private relied(answer: UpstreamAnswer, operation: string): unknown {
    if (answer.status >= 400 && answer.status < 500) {
      throw this.unexpected({
        operation,
        upstreamStatus: answer.status,
        named: answer.status === 400 ? namedFields(answer.data) : undefined,
        upstreamRequestId: answer.requestId,
      });
    }
    return this.expect(answer, operation);
  }

  /** A relied-on list: bare, or under one of the wrapper keys; an answer with neither is no list at all, not an empty one. */
  private listOf<T>(answer: UpstreamAnswer, operation: string, wrappers: readonly string[] = ['results']): T[] {
    const data = this.relied(answer, operation);
    const list = Array.isArray(data) ? data : wrappers.map((key) => (data as Record<string, unknown> | null)?.[key]).find(Array.isArray);
    if (!list)
      throw this.unexpected({ operation, missing: `a list (bare or under ${wrappers.join(', ')})`, upstreamRequestId: answer.requestId });
    return list as T[];
  }

  private unexpected(answer: UnexpectedAnswer): UpstreamError {
    return this.unexpectedAnswers.raise(answer);
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

  private async openApi({ granted, once, sending, ...call }: OpenApiCall): Promise<UpstreamAnswer & { refusal: BookingRefusal | null }> {
    const { callDeadlineMs } = this.config.get('guesty', { infer: true });
    const deadline = Date.now() + (call.kind === 'read' ? callDeadlineMs : callDeadlineMs * 1.5);
    let token: AccessToken = await this.tokens.current();
    let reminted = false;
    for (let attempt = 0; ; attempt += 1) {
      await this.slot(call.priority, deadline, call.operation);
      if (attempt === 0) granted?.();
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
      sending?.();
      try {
        answer = await this.http.send({ ...call, host: 'api', headers: { Authorization: `Bearer ${token.value}` } });
      } catch (error) {
        const retryable = !once && error instanceof UpstreamError && (call.kind === 'read' || !error.maybeSent);
        if (retryable && (await this.backoff(attempt, deadline))) continue;
        throw error;
      }
      // The service's clock, not the wall's: "a quiet minute" is a span a test can step through.
      if (answer.status >= 200 && answer.status < 300) this.proven = { token: token.value, at: this.clock.now() };
      const proven = this.proven?.token === token.value && this.clock.now() - this.proven.at < TOKEN_PROVEN_MS;
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
        if (!once && Date.now() + (answer.retryAfterSeconds ?? 1) * 1000 < deadline) continue;
        throw new UpstreamError('rate_limited', 'The booking platform is busy; try again shortly.', {
          operation: call.operation,
          upstreamStatus: 429,
          upstreamRequestId: answer.requestId,
          maybeSent: true,
          status: 503,
          retryAfterSeconds: answer.retryAfterSeconds ?? 1,
        });
      }
      if (answer.status >= 500 && call.kind === 'read' && !once && (await this.backoff(attempt, deadline))) continue;
      return { ...answer, refusal: null };
    }
  }

  /**
   * Holds a slot of the outbound budget fresh enough to send on: one granted before a stall of this
   * replica's loop is taken again, so late sends never crowd one of the platform's windows.
   */
  private async slot(priority: Priority, deadline: number, operation: string): Promise<void> {
    for (;;) {
      const grant = await inSpan('upstream rate limit wait', { 'upstream.priority': priority }, () =>
        this.limiter.acquire(priority, deadline).catch((refusal: unknown) => {
          // The budget's refusal is a request that surely never left: a write the journal need not remember.
          if (!(refusal instanceof DomainError) || refusal instanceof UpstreamError) throw refusal;
          throw new UpstreamError(refusal.code, refusal.detail, {
            operation,
            maybeSent: false,
            status: refusal.status,
            retryAfterSeconds: refusal.retryAfterSeconds,
          });
        }),
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
