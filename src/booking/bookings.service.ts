import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { RequestLimits } from '../common/abuse/request-limits';
import { Clock } from '../common/clock';
import { DomainError } from '../common/errors/domain-error';
import { OnProductEvent } from '../common/events/on-product-event';
import { ProductEvents } from '../common/events/product-events';
import { AppConfig, BookingHold } from '../config/app-config';
import { CheckoutSession, CheckoutSessionView, SessionBooking, toView } from '../sessions/checkout-session';
import { CheckoutSessionsStore, SessionPointer } from '../sessions/checkout-sessions.store';
import { AdmittedBooking, BookingRequest, QuoteBookings } from '../sessions/quote-bookings';
import { PaymentProviders } from '../upstream/payment-providers';
import { ReservationLease, ReservationLeases } from '../journal/reservation-leases';
import { Reconciliation, WriteIntent } from '../journal/write-intent';
import { WriteJournal } from '../journal/write-journal';
import { refusedBeforeEffect } from '../journal/refused-before-effect';
import { KeyValueStore } from '../redis/key-value-store';
import { RedisKeys } from '../redis/redis-keys';
import { GuestyClient } from '../upstream/guesty-client';
import { PaymentProvider, ReservedUntil } from '../upstream/guesty.types';
import { Priority } from '../upstream/outbound-rate-limiter';
import { UpstreamError } from '../upstream/upstream-error';
import { CalendarCache } from './calendar.service';
import { RatePlanView, StoredQuote } from './quote';
import { Quotes } from './quotes.service';

/**
 * BOOKING_HOLD in the upstream's `reservedUntil` words, sent as strings: the reference types the field
 * `string` (its example "-1"), though its enum lists the fractions as numbers (docs/upstream.md).
 */
const RESERVED_UNTIL: Record<BookingHold, { value: ReservedUntil; ms: number }> = {
  '10m': { value: '0.17', ms: 10 * 60_000 },
  '15m': { value: '0.25', ms: 15 * 60_000 },
  '30m': { value: '0.5', ms: 30 * 60_000 },
  '12h': { value: 'twelveHours', ms: 12 * 3_600_000 },
  '24h': { value: 'day', ms: 24 * 3_600_000 },
  '36h': { value: 'thirtySixHours', ms: 36 * 3_600_000 },
  '48h': { value: 'twoDays', ms: 48 * 3_600_000 },
  '72h': { value: 'threeDays', ms: 72 * 3_600_000 },
};
/**
 * The guest and reservation creates of a booking come before any card is on file: anyone can send
 * them, so they spend the anonymous share of the budget (UPSTREAM_ANONYMOUS_SHARE) and a flood of
 * them never stops a checkout. The writes after a card (attach, confirm) keep checkout priority.
 */
const BEFORE_A_CARD: Priority = 'anonymous';
/** The quote's booking record outlives any retry of its Idempotency-Key. */
const BOOKING_RECORD_TTL_MS = 24 * 3_600_000;
/** The confirmation waits this long for the attach's lease to be released. */
const CONFIRM_LEASE_WAIT_MS = 15_000;

/** A reservation create as the journal records it: enough to find it upstream (the quote's reservationId). */
interface CreateRequest {
  upstreamQuoteId: string;
  ratePlanId?: string;
  guestId: string;
  /** Whose booking it is (a digest of the Idempotency-Key): another key answers quote_used. */
  keyDigest: string;
  quoteId: string;
}

interface CreatedReservation {
  reservationId: string;
  confirmationCode: string;
  guestId: string;
  checkIn: string;
  checkOut: string;
  holdExpiresAt?: string;
}

/**
 * What a quote's writes record once booked: by which key, the reservation, and the session opened
 * on it (by its ref).
 */
interface BookingRecord extends SessionPointer {
  keyDigest: string;
  reservation: CreatedReservation;
}

interface StatusRequest {
  status: 'confirmed';
}

function quoteUsed(): DomainError {
  return new DomainError('quote_used', 'A reservation was already made from this quote. Ask for a new quote to book again.');
}

/**
 * Reservations from quotes (docs/product-spec.md §3.1, §6): the guest created or merged by email,
 * the reservation created from the quote as `reserved` under a lease on the quote and through the
 * journal (a lost answer is found by re-reading the quote's `reservationId`, never by a second
 * create), a session opened on it; once the card is on file, `instant` confirms it.
 */
@Injectable()
export class Bookings implements OnModuleInit, QuoteBookings {
  private readonly logger = new Logger('Bookings');

  constructor(
    private readonly guesty: GuestyClient,
    private readonly quotes: Quotes,
    private readonly calendar: CalendarCache,
    private readonly sessions: CheckoutSessionsStore,
    private readonly providers: PaymentProviders,
    private readonly limits: RequestLimits,
    private readonly leases: ReservationLeases,
    private readonly journal: WriteJournal,
    @Inject(KeyValueStore) private readonly store: KeyValueStore,
    private readonly keys: RedisKeys,
    private readonly clock: Clock,
    private readonly config: ConfigService<AppConfig, true>,
  ) {}

  onModuleInit(): void {
    this.journal.register<CreatedReservation>('reservation-create', {
      reconcile: (intent) => this.findCreate(intent as WriteIntent<CreateRequest, CreatedReservation>),
      settled: (intent) => this.createSettledElsewhere(intent as WriteIntent<CreateRequest, CreatedReservation>),
    });
    this.journal.register<{ status: string }>('reservation-status', {
      reconcile: (intent) => this.findStatus(intent as WriteIntent<StatusRequest, { status: string }>),
      settled: () => Promise.resolve(),
    });
  }

  /** The quote and its rate plan, found before the booking's Idempotency-Key is claimed. */
  async admit(request: BookingRequest, clientIp: string): Promise<AdmittedBooking> {
    const quote = await this.quotes.load(request.quoteId);
    if (!quote) throw new DomainError('quote_not_found', 'This quote is unknown or has expired. Please ask for a new quote.');
    const plan = request.ratePlanId
      ? quote.view.ratePlans.find((candidate) => candidate.id === request.ratePlanId)
      : quote.view.ratePlans[0];
    if (!plan) throw DomainError.validation([{ field: 'ratePlanId', message: 'ratePlanId must be one of the quote’s rate plans' }]);
    // A long stay is quoted (the site shows its price) but not held online: a year's hold costs two requests.
    const { maxNights } = this.config.get('booking', { infer: true });
    if (quote.view.nights > maxNights) {
      throw new DomainError(
        'stay_not_allowed',
        `Stays longer than ${maxNights} nights cannot be booked online (BOOKING_MAX_NIGHTS); please contact the property to book this stay.`,
      );
    }
    return { book: (idempotencyKey) => this.book(quote, plan, request, idempotencyKey, clientIp) };
  }

  private async book(
    quote: StoredQuote,
    plan: RatePlanView,
    request: BookingRequest,
    idempotencyKey: string,
    clientIp: string,
  ): Promise<CheckoutSessionView> {
    const keyDigest = RedisKeys.digest(idempotencyKey);
    const writesOf = `quote-${quote.upstreamQuoteId}`;
    const writes = this.keys.reservationWrites(writesOf);
    // The session's ref names its hold among the listing's unpaid ones: paying by card ends it there.
    const sessionId = this.sessions.newId();
    const holdId = RedisKeys.sessionRef(sessionId);
    const reservation = await this.leases.withLease(writesOf, async (lease) => {
      const intentId = RedisKeys.digest(`reservation-create:${quote.upstreamQuoteId}:${keyDigest}`);
      const {
        intent: earlier,
        openIntentId,
        also,
      } = await this.journal.peek<CreateRequest, CreatedReservation>(writesOf, intentId, [writes.booking]);
      let record = also[0] ? (JSON.parse(also[0]) as BookingRecord) : null;
      if (!record && openIntentId && openIntentId !== intentId) {
        if (await this.journal.settleOpen(lease, openIntentId))
          throw DomainError.outcomePending('This quote is being booked; try again in a moment.');
        const raw = await this.store.get(writes.booking);
        record = raw ? (JSON.parse(raw) as BookingRecord) : null;
      }
      if (record && record.keyDigest !== keyDigest) throw quoteUsed();
      if (record) return record;
      if (!earlier) {
        // A reservation no card can pay would only hold the dates: the payment account is checked first.
        await this.paymentAccount(quote.view.listingId);
        // Counted once per booking, before anything is sent; a retry of a create already sent is not a new hold.
        await this.limits.unpaidHold(clientIp, quote.view.listingId, holdId, this.holdMs());
      }
      try {
        const guest = earlier ? { _id: earlier.request.guestId } : await this.guesty.createGuest(request.guest, BEFORE_A_CARD);
        const created = await this.create(
          lease,
          quote,
          { upstreamQuoteId: quote.upstreamQuoteId, ratePlanId: plan.id, guestId: guest._id, keyDigest, quoteId: quote.view.id },
          intentId,
          earlier,
        );
        return { keyDigest, reservation: created } satisfies BookingRecord;
      } catch (error) {
        if (refusedBeforeEffect(error)) await this.limits.unpaidHoldEnded(quote.view.listingId, holdId).catch(() => undefined);
        throw error;
      }
    });
    return this.openSession(quote, plan.total, reservation, writesOf, sessionId);
  }

  private async create(
    lease: ReservationLease,
    quote: StoredQuote,
    request: CreateRequest,
    intentId: string,
    earlier: WriteIntent<CreateRequest, CreatedReservation> | null,
  ): Promise<CreatedReservation> {
    const { hold, source } = this.config.get('booking', { infer: true });
    const writes = this.keys.reservationWrites(lease.reservationId);
    let created: CreatedReservation;
    try {
      created = await this.journal.perform<CreateRequest, CreatedReservation>(lease, {
        kind: 'reservation-create',
        intentId,
        earlier,
        openSettled: true,
        request,
        context: {},
        snapshot: () => Promise.resolve([]),
        alsoOnLanded: (landed) => [
          {
            op: 'set',
            key: writes.booking,
            value: JSON.stringify({ keyDigest: request.keyDigest, reservation: landed } satisfies BookingRecord),
            ttlMs: BOOKING_RECORD_TTL_MS,
          },
        ],
        send: async () => {
          const answer = await this.guesty.createReservationFromQuote(
            {
              quoteId: request.upstreamQuoteId,
              status: 'reserved',
              ...(request.ratePlanId ? { ratePlanId: request.ratePlanId } : {}),
              reservedUntil: RESERVED_UNTIL[hold].value,
              guestId: request.guestId,
            },
            BEFORE_A_CARD,
          );
          return {
            reservationId: answer.reservationId,
            confirmationCode: answer.confirmationCode ?? '',
            guestId: answer.guestId ?? request.guestId,
            checkIn: answer.checkInDateLocalized ?? quote.view.checkIn,
            checkOut: answer.checkOutDateLocalized ?? quote.view.checkOut,
            holdExpiresAt: answer.reservedExpiresAt ?? new Date(this.clock.now() + RESERVED_UNTIL[hold].ms).toISOString(),
          };
        },
        refused: refusedBeforeEffect,
      });
    } catch (error) {
      // The upstream refuses a second reservation from one quote: it was booked where Redis cannot tell.
      if (
        error instanceof UpstreamError &&
        (error.code === 'upstream_error' || error.code === 'booking_refused') &&
        /already|used/i.test(error.upstreamMessage ?? '')
      )
        throw quoteUsed();
      throw error;
    }
    this.logger.log({ reservationId: created.reservationId, source }, 'reservation created from a quote');
    return created;
  }

  /** The listing's payment provider, when cards can be paid with it (docs/product-spec.md §3.1). */
  private async paymentAccount(listingId: string): Promise<PaymentProvider> {
    const provider = await this.providers.forListing(listingId);
    if (!provider || provider.status !== 'ACTIVE') {
      throw new DomainError(
        'payment_account_unavailable',
        'Card payments are not available for this property right now; please try again later.',
      );
    }
    return provider;
  }

  private holdMs(): number {
    return RESERVED_UNTIL[this.config.get('booking', { infer: true }).hold].ms;
  }

  private async openSession(
    quote: StoredQuote,
    amount: number,
    record: BookingRecord,
    writesOf: string,
    sessionId: string,
  ): Promise<CheckoutSessionView> {
    const { reservation } = record;
    const existing = await this.sessions.pointedAt(record).catch(() => null);
    if (existing) return toView(existing);
    // The attach that follows is spaced from the create, though the create was journaled under the quote.
    await Promise.all([
      this.journal.startSpacing(reservation.reservationId),
      this.quotes.booked(quote),
      this.calendar.nightsTaken(quote.view.listingId, reservation.checkIn, reservation.checkOut).catch(() => undefined),
    ]);
    await this.limits.sessionOpened(reservation.reservationId);
    const provider = await this.paymentAccount(quote.view.listingId);
    const now = this.clock.now();
    const booking: SessionBooking = {
      reservationId: reservation.reservationId,
      confirmationCode: reservation.confirmationCode,
      status: 'reserved',
      checkIn: reservation.checkIn,
      checkOut: reservation.checkOut,
      ...(reservation.holdExpiresAt ? { holdExpiresAt: reservation.holdExpiresAt } : {}),
    };
    const session = await this.sessions.create({
      id: sessionId,
      status: 'requires_payment_method',
      reservationId: reservation.reservationId,
      listingId: quote.view.listingId,
      guestId: reservation.guestId,
      paymentProviderId: provider.paymentProviderId,
      // The quote's total is the reservation's balance: no read of the reservation is spent on it.
      amount,
      currency: quote.view.currency,
      createdAt: now,
      expiresAt: now + this.config.get('checkout', { infer: true }).sessionTtlSeconds * 1000,
      booking,
    });
    await this.store
      .set(
        this.keys.reservationWrites(writesOf).booking,
        JSON.stringify({ ...record, sessionRef: RedisKeys.sessionRef(session.id) } satisfies BookingRecord),
        {
          ttlMs: BOOKING_RECORD_TTL_MS,
        },
      )
      .catch(() => false);
    return toView(session);
  }

  /** Runs after the attach was answered (its lease released): the guest never waits for it. */
  /**
   * A card was put on a session's reservation: a booked one stops counting as an unpaid hold and,
   * when bookings confirm at once, is confirmed. Not awaited by the attach: the guest is answered first.
   */
  @OnProductEvent('card.attached')
  onCardAttached({ sessionId }: ProductEvents['card.attached']): void {
    this.sessions
      .load(sessionId)
      .then((session) => {
        if (session?.booking) this.confirmLater(session);
      })
      .catch((error: unknown) => this.logger.warn({ err: error, sessionId }, 'a paid booking could not be read to confirm it yet'));
  }

  private confirmLater(session: CheckoutSession): void {
    this.limits
      .unpaidHoldEnded(session.listingId, RedisKeys.sessionRef(session.id))
      .catch((error: unknown) =>
        this.logger.warn({ err: error }, 'a paid hold still counts among its listing’s unpaid holds until its hold ends'),
      );
    if (this.config.get('booking', { infer: true }).confirmation !== 'instant' || session.booking?.status !== 'reserved') return;
    setImmediate(() => {
      this.confirm(session).catch((error: unknown) =>
        this.logger.warn({ err: error, reservationId: session.reservationId }, 'a paid reservation could not be confirmed yet'),
      );
    });
  }

  private async confirm(session: CheckoutSession): Promise<void> {
    const { reservationId } = session;
    const outcome = await this.leases.withLease(
      reservationId,
      (lease) =>
        this.journal.perform<StatusRequest, { status: string }>(lease, {
          kind: 'reservation-status',
          intentId: RedisKeys.digest(`reservation-status:${reservationId}:confirmed`),
          request: { status: 'confirmed' },
          context: { sessionId: session.id },
          snapshot: () => Promise.resolve([]),
          send: async () => ({ status: (await this.guesty.setReservationStatus(reservationId, 'confirmed')).status ?? 'confirmed' }),
          refused: refusedBeforeEffect,
        }),
      { waitMs: CONFIRM_LEASE_WAIT_MS },
    );
    await this.sessions.update(session.id, (current) =>
      current.booking && current.booking.status !== 'confirmed'
        ? { ...current, booking: { ...current.booking, status: outcome.status === 'confirmed' ? 'confirmed' : current.booking.status } }
        : null,
    );
    this.logger.log({ reservationId }, 'reservation confirmed after its card was put on file');
  }

  /** A create without a clear answer: the quote says whether a reservation was made from it. */
  private async findCreate(intent: WriteIntent<CreateRequest, CreatedReservation>): Promise<Reconciliation<CreatedReservation>> {
    const quote = await this.guesty.getQuote(intent.request.upstreamQuoteId);
    if (!quote?.reservationId) return { notLanded: 'the quote has no reservation' };
    const reservation = await this.guesty.getReservation(quote.reservationId);
    const hold = RESERVED_UNTIL[this.config.get('booking', { infer: true }).hold];
    return {
      landed: {
        reservationId: quote.reservationId,
        confirmationCode: reservation?.confirmationCode ?? '',
        guestId: reservation?.guestId ?? intent.request.guestId,
        checkIn: quote.checkInDateLocalized ?? reservation?.checkIn?.slice(0, 10) ?? '',
        checkOut: quote.checkOutDateLocalized ?? reservation?.checkOut?.slice(0, 10) ?? '',
        // The hold started when the create was sent, at the latest.
        holdExpiresAt: new Date(intent.sentAt + hold.ms).toISOString(),
      },
    };
  }

  private async createSettledElsewhere(intent: WriteIntent<CreateRequest, CreatedReservation>): Promise<void> {
    if (intent.state !== 'landed' || !intent.outcome) return;
    const record: BookingRecord = { keyDigest: intent.request.keyDigest, reservation: intent.outcome };
    await this.store.set(this.keys.reservationWrites(intent.reservationId).booking, JSON.stringify(record), {
      ifAbsent: true,
      ttlMs: BOOKING_RECORD_TTL_MS,
    });
  }

  private async findStatus(intent: WriteIntent<StatusRequest, { status: string }>): Promise<Reconciliation<{ status: string }>> {
    const reservation = await this.guesty.getReservation(intent.reservationId);
    return reservation?.status === intent.request.status
      ? { landed: { status: reservation.status } }
      : { notLanded: `the reservation is ${reservation?.status ?? 'gone'}` };
  }
}
