import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { RequestLimits } from '../common/abuse/request-limits';
import { Clock } from '../primitives/clock';
import { DomainError } from '../common/errors/domain-error';
import { OnProductEvent } from '../common/events/on-product-event';
import { ProductEvents } from '../common/events/product-events';
import { AppConfig } from '../config/app-config';
import { CheckoutSession, CheckoutSessionView, SessionBooking, toView } from '../sessions/checkout-session';
import { SessionState } from '../sessions/session-state';
import { AdmittedBooking, BookingRequest, QuoteBookings } from '../sessions/quote-bookings';
import { GuestyClient } from '../upstream/guesty-client';
import { PaymentProviders } from '../upstream/payment-providers';
import { GuestCreateWrite } from './guest-create.write-kind';
import { BOOKING_RECORD, BookingRecord, CreatedReservation, ReservationCreateWrite } from './reservation-create.write-kind';
import { ConfirmationNotSent, ReservationStatus, ReservationStatusWrite, StatusNotRead } from './reservation-status.write-kind';
import { MetricsService } from '../metrics/metrics.service';
import { onQuote, onReservation } from '../journal/write-intent';
import { WriteJournal } from '../journal/write-journal';
import { FollowUps } from '../journal/follow-ups';
import { AtRestCipher, AtRestCiphers } from '../redis/at-rest-cipher';
import { RedisKeys } from '../redis/redis-keys';
import { holdEndedAs, PaymentProvider } from '../upstream/platform-results';
import { UpstreamError } from '../upstream/upstream-error';
import { CalendarService } from './calendar.service';
import { RatePlanView, StoredQuote } from './quote';
import { QuotesService } from './quotes.service';

/** A follow-up this room carries out (`@FollowUps.carriedOutBy`), and what it answers. */
type FollowUpHandler = Parameters<FollowUps['handle']>[1];
type FollowUp = Parameters<FollowUpHandler>[0];
type FollowUpOutcome = Awaited<ReturnType<FollowUpHandler>>;

/**
 * What a guest whose paid booking ended before its confirmation is told. The platform issues no
 * refund on a cancel (its help centre: the property refunds by hand) and publishes nothing on charges
 * still scheduled: the card stays with the reservation, and the property answers for any payment.
 */
const ENDED_NOTICE: Record<'expired' | 'canceled', string> = {
  canceled:
    'The property canceled this reservation before it was confirmed, so the booking is not confirmed. Your card stays on file with the property; please contact them about any payment already taken.',
  expired:
    'This reservation stopped holding its dates before it was confirmed, so the booking is not confirmed. Your card stays on file with the property; please contact them about any payment already taken.',
};

/** The confirmation waits this long for the attach's lease to be released. */
const CONFIRM_LEASE_WAIT_MS = 15_000;

function quoteUsed(): DomainError {
  return new DomainError('quote_used', 'A reservation was already made from this quote. Ask for a new quote to book again.');
}

/**
 * Reservations from quotes (docs/product-spec.md §3.1, §6): the guest and the reservation are
 * created through the journal under a lease on the quote, so a retry never makes a second of either
 * (a lost answer is found by the guest's email, or by the quote's `reservationId`). Once the card
 * is on file, `instant` confirms the reservation.
 */
@Injectable()
export class BookingsService implements QuoteBookings {
  private readonly logger = new Logger('Bookings');
  /** Seals the session id a booking's intents keep for its retries: never in the clear at rest (§7). */
  private readonly sessionSeal: AtRestCipher;

  constructor(
    private readonly quotes: QuotesService,
    private readonly calendar: CalendarService,
    private readonly sessions: SessionState,
    private readonly providers: PaymentProviders,
    private readonly limits: RequestLimits,
    private readonly journal: WriteJournal,
    private readonly guests: GuestCreateWrite,
    private readonly creates: ReservationCreateWrite,
    private readonly statuses: ReservationStatusWrite,
    private readonly clock: Clock,
    private readonly config: ConfigService<AppConfig, true>,
    private readonly guesty: GuestyClient,
    ciphers: AtRestCiphers,
    private readonly followUps: FollowUps,
    private readonly metrics: MetricsService,
  ) {
    this.sessionSeal = ciphers.for('booking-session');
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
      this.logger.log({ nights: quote.view.nights, maxNights }, 'a stay longer than BOOKING_MAX_NIGHTS refused');
      throw new DomainError(
        'stay_not_allowed',
        `Stays longer than ${maxNights} nights cannot be booked online; please contact the property to book this stay.`,
        { limit: { reason: 'stay_too_long', maxNights } },
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
    const target = onQuote(quote.upstreamQuoteId);
    // One booking of the quote under one Idempotency-Key: its guest and its reservation, each journaled.
    const key = `${quote.upstreamQuoteId}:${keyDigest}`;
    const writes = [
      { kind: this.creates, key },
      { kind: this.guests, key },
    ] as const;
    const booked = await this.journal.holding(
      target,
      async (held) => {
        const {
          intents: [earlier, guestEarlier],
          openIntentId,
          record: recorded,
        } = held;
        let record = recorded;
        const ours = [earlier?.id, guestEarlier?.id];
        if (!record && openIntentId && !ours.includes(openIntentId)) {
          if (await held.settleOpen()) throw DomainError.outcomePending('This quote is being booked; try again in a moment.');
          record = await held.readRecord();
        }
        if (record && record.keyDigest !== keyDigest) throw quoteUsed();
        // The session's id (by its ref) names the booking's hold among the listing's unpaid ones, so a
        // retry opens the session under the id its first attempt counted the hold under (kept sealed in
        // its intents): paying the booking then ends that hold.
        const kept = earlier?.request.sealedSessionId ?? guestEarlier?.request.sealedSessionId;
        const sessionId = (kept && this.sessionSeal.open(kept, `booking:${key}`)) || this.sessions.newId();
        const sealedSessionId = this.sessionSeal.seal(sessionId, `booking:${key}`);
        if (record) return { record, sessionId };
        const holdId = RedisKeys.sessionRef(sessionId);
        // Counted once per booking, before anything is sent; a retry of a booking already begun is not a
        // new hold (a refused step ended the hold it counted).
        if (![earlier, guestEarlier].some((intent) => intent && intent.state !== 'refused')) {
          // A reservation no card can pay would only hold the dates: the payment account is checked first.
          await this.paymentAccount(quote.view.listingId);
          await this.limits.unpaidHold(clientIp, quote.view.listingId, holdId, this.creates.hold().ms, quote.view.nights);
        }
        try {
          const guestId = earlier
            ? earlier.request.guestId
            : (await held.send(this.guests, key, { guest: request.guest, sessionId, sealedSessionId })).guestId;
          const created = await this.create(() =>
            held.send(this.creates, key, {
              ...(plan.id ? { ratePlanId: plan.id } : {}),
              guestId,
              keyDigest,
              quoteId: quote.view.id,
              checkIn: quote.view.checkIn,
              checkOut: quote.view.checkOut,
              sessionId,
              sealedSessionId,
            }),
          );
          return { record: { keyDigest, reservation: created } satisfies BookingRecord, sessionId };
        } catch (error) {
          // Ended only when nothing may have been made: a write whose outcome is pending still holds the dates.
          if (!isPending(error) && this.creates.refusedBeforeEffect(error))
            await this.limits.unpaidHoldEnded(quote.view.listingId, holdId, this.limits.holdNetworkOf(clientIp)).catch(() => undefined);
          throw error;
        }
      },
      { peek: writes, record: BOOKING_RECORD },
    );
    try {
      return await this.openSession(quote, plan.total, booked.record, booked.sessionId, this.limits.holdNetworkOf(clientIp));
    } catch (error) {
      // No card can follow this reservation: it must not hold the dates for nobody (docs/product-spec.md §3.1).
      if (error instanceof DomainError && error.code === 'payment_account_unavailable') {
        await this.followUps
          .recordAndRun({
            kind: 'cancel-orphan',
            reservationId: booked.record.reservation.reservationId,
            sessionRef: RedisKeys.sessionRef(booked.sessionId),
            listingId: quote.view.listingId,
            network: this.limits.holdNetworkOf(clientIp),
          })
          .catch((cause: unknown) =>
            this.logger.error(
              { err: cause, reservationId: booked.record.reservation.reservationId },
              'a reservation no session could follow is not canceled yet',
            ),
          );
      }
      throw error;
    }
  }

  /**
   * Cancels, through the journal, a reservation no session can follow (a follow-up, FollowUps: the
   * sweep tries again while the outcome is not clear); its unpaid hold stops counting.
   */
  @FollowUps.carriedOutBy('cancel-orphan')
  private async cancelOrphan({ reservationId, sessionRef, listingId, network }: FollowUp): Promise<FollowUpOutcome> {
    try {
      await this.setStatus(reservationId, 'canceled');
    } catch (error) {
      if (error instanceof UpstreamError && refusedForGood(error.upstreamStatus)) return 'refused';
      throw error;
    }
    if (listingId !== undefined) await this.limits.unpaidHoldEnded(listingId, sessionRef, network);
    this.logger.warn({ reservationId }, 'a reservation no session could follow was canceled');
    return 'done';
  }

  /** A reservation's status change through the journal, once per reservation and status: background work, spaced. */
  private setStatus(reservationId: string, status: ReservationStatus, sessionId?: string): Promise<{ status: string }> {
    return this.journal.write(
      onReservation(reservationId),
      this.statuses,
      `${reservationId}:${status}`,
      { status, ...(sessionId ? { sessionId } : {}) },
      { waitMs: CONFIRM_LEASE_WAIT_MS, spaced: true },
    );
  }

  /** The reservation's create, `send` through the journal: a quote the platform says was used is `quote_used`. */
  private async create(send: () => Promise<CreatedReservation>): Promise<CreatedReservation> {
    let created: CreatedReservation;
    try {
      created = await send();
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
    this.logger.log(
      { reservationId: created.reservationId, source: this.config.get('booking', { infer: true }).source },
      'reservation created from a quote',
    );
    return created;
  }

  /**
   * What the new reservation owes as the platform states it (its folio's total), whatever the quote
   * said: the session shows it and 3-D Secure authenticates it. The reservation exists by now, so a
   * failed read is `outcome_pending`, never a refusal: the same Idempotency-Key opens the session,
   * where a new key would meet the quote used.
   */
  private async owed(reservationId: string, quoted: number): Promise<number> {
    const pending = (cause?: unknown) =>
      DomainError.outcomePending(
        'The reservation is made; what it owes is still being read from the booking platform. Please try again in a moment.',
        cause,
      );
    const owed = await this.guesty.balanceOfNewReservation(reservationId, 'anonymous').catch((error: unknown) => {
      throw pending(error);
    });
    if (typeof owed.amount !== 'number') throw pending();
    if (owed.amount !== quoted)
      this.logger.warn({ reservationId, quoted, owed: owed.amount }, 'the reservation owes another amount than its quote');
    return owed.amount;
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

  private async openSession(
    quote: StoredQuote,
    quoted: number,
    record: BookingRecord,
    sessionId: string,
    holdNetwork: string,
  ): Promise<CheckoutSessionView> {
    const { reservation } = record;
    const existing = await this.sessions.pointedAt(record).catch(() => null);
    if (existing) return toView(existing);
    const provider = await this.paymentAccount(quote.view.listingId);
    const amount = await this.owed(reservation.reservationId, quoted);
    // A background write that follows (a cancel) is spaced from the create, though it was journaled under the quote.
    await Promise.all([
      this.journal.startSpacing(onReservation(reservation.reservationId)),
      this.quotes.booked(quote),
      this.calendar.nightsTaken(quote.view.listingId, reservation.checkIn, reservation.checkOut).catch(() => undefined),
    ]);
    await this.limits.sessionOpened(reservation.reservationId);
    const now = this.clock.now();
    const booking: SessionBooking = {
      reservationId: reservation.reservationId,
      confirmationCode: reservation.confirmationCode,
      status: 'reserved',
      checkIn: reservation.checkIn,
      checkOut: reservation.checkOut,
      ...(reservation.holdExpiresAt ? { holdExpiresAt: reservation.holdExpiresAt } : {}),
      holdNetwork,
    };
    const session = await this.sessions.open({
      id: sessionId,
      reservationId: reservation.reservationId,
      ...(reservation.confirmationCode ? { confirmationCode: reservation.confirmationCode } : {}),
      listingId: quote.view.listingId,
      guestId: reservation.guestId,
      paymentProviderId: provider.paymentProviderId,
      amount,
      currency: quote.view.currency,
      createdAt: now,
      expiresAt: now + this.config.get('checkout', { infer: true }).sessionTtlSeconds * 1000,
      booking,
    });
    await this.creates.recordSession(onQuote(quote.upstreamQuoteId), record, RedisKeys.sessionRef(session.id));
    return toView(session);
  }

  /**
   * A card was put on a session's reservation: a booked one stops counting as an unpaid hold and,
   * when bookings confirm at once, is confirmed. Not awaited by the attach: the guest is answered first.
   */
  @OnProductEvent('card.attached', 'booking confirmation')
  onCardAttached({ sessionId, booked, foundOnFile }: ProductEvents['card.attached']): void {
    // A session opened on an existing reservation has no hold to end nor booking to confirm.
    if (!booked) return;
    this.sessions
      .load(sessionId)
      .then((session) => {
        if (session?.booking) this.confirmLater(session, foundOnFile === true);
      })
      .catch((error: unknown) => this.logger.warn({ err: error, sessionId }, 'a paid booking could not be read to confirm it yet'));
  }

  /** `unrecorded`: no journal step recorded the confirmation with the card, so it is recorded before its try. */
  private confirmLater(session: CheckoutSession, unrecorded: boolean): void {
    this.limits
      .unpaidHoldEnded(session.listingId, RedisKeys.sessionRef(session.id), session.booking?.holdNetwork)
      .catch((error: unknown) =>
        this.logger.warn({ err: error }, 'a paid hold still counts among its listing’s unpaid holds until its hold ends'),
      );
    if (this.config.get('booking', { infer: true }).confirmation !== 'instant' || session.booking?.status !== 'reserved') return;
    // The request's own try; the follow-up recorded with the card is the sweep's if this one fails or this replica dies.
    const followUp = {
      kind: 'confirm-booking' as const,
      reservationId: session.reservationId,
      sessionRef: RedisKeys.sessionRef(session.id),
    };
    setImmediate(() => {
      (unrecorded ? this.followUps.recordAndRun(followUp) : this.followUps.run(followUp)).catch((error: unknown) =>
        this.logger.warn({ err: error, reservationId: session.reservationId }, 'a paid reservation could not be confirmed yet'),
      );
    });
  }

  /**
   * A paid booking's confirmation (a follow-up of its card, FollowUps): once per reservation through
   * the journal, by its request or by any replica's sweep, after the reservation's status is read
   * (ReservationStatusWrite.snapshot). A platform that refuses it for good (a 4xx that is not "busy")
   * is reported as such; a status read that fails, and anything else, is tried again.
   */
  @FollowUps.carriedOutBy('confirm-booking')
  private async confirm({ reservationId, sessionRef }: FollowUp): Promise<FollowUpOutcome> {
    const session = await this.sessions.pointedAt({ sessionRef });
    let outcome: { status: string };
    try {
      outcome = await this.setStatus(reservationId, 'confirmed', session?.id);
    } catch (error) {
      if (error instanceof ConfirmationNotSent) {
        if (!error.ended) outcome = { status: error.platformStatus };
        else return this.notConfirmed(reservationId, session, error.platformStatus, error.ended);
      } else if (error instanceof StatusNotRead) {
        this.logger.warn(
          { err: error.cause, reservationId },
          'a paid reservation’s status could not be read; its confirmation is tried again',
        );
        return 'retry';
      } else if (error instanceof UpstreamError && refusedForGood(error.upstreamStatus)) {
        await this.endedMeanwhile(reservationId, session);
        return 'refused';
      } else throw error;
    }
    if (outcome.status === 'confirmed' && session) await this.moveBooking(session.id, { move: 'bookingConfirmed' });
    this.logger.log({ reservationId }, 'reservation confirmed after its card was put on file');
    return 'done';
  }

  /**
   * The platform ended a paid booking before its confirmation (the property canceled or declined it,
   * its hold ran out): nothing is sent, the session shows how it ended and what became of the card,
   * and the operator is told, since a card on file and perhaps a payment are theirs to see to.
   */
  private async notConfirmed(
    reservationId: string,
    session: CheckoutSession | null,
    platformStatus: string,
    ended: 'expired' | 'canceled',
  ): Promise<FollowUpOutcome> {
    if (session) await this.moveBooking(session.id, { move: 'bookingEnded', status: ended, notice: ENDED_NOTICE[ended] });
    this.metrics.confirmationsWithheld.inc({ status: platformStatus });
    this.logger.error(
      { reservationId, platformStatus },
      'a paid booking ended on the platform before its confirmation, which was not sent: its card stays on file there; refund or cancel any payment taken or scheduled',
    );
    return 'done';
  }

  /**
   * A confirmation refused for good: the property may have ended the reservation between the status
   * read and the send (the write spacing lies between them), so the session shows what the platform
   * shows now rather than `reserved`. A read that fails leaves it as it was.
   */
  private async endedMeanwhile(reservationId: string, session: CheckoutSession | null): Promise<void> {
    const status = await this.guesty.reservationStatusOf(reservationId, 'checkout').catch(() => null);
    const ended = holdEndedAs(status ?? undefined);
    if (session && ended) await this.moveBooking(session.id, { move: 'bookingEnded', status: ended, notice: ENDED_NOTICE[ended] });
  }

  /** A move of the booking a session shows; a session gone (its TTL ended) has nobody left to tell. */
  private async moveBooking(sessionId: string, move: Parameters<SessionState['move']>[1]): Promise<void> {
    await this.sessions.move(sessionId, move).catch((error: unknown) => {
      if (!(error instanceof DomainError && error.code === 'session_not_found')) throw error;
    });
  }
}

/** A 4xx the platform will answer again: not a timeout, a conflict of the moment or a rate limit. */
function refusedForGood(status: number | undefined): boolean {
  return status !== undefined && status >= 400 && status < 500 && ![408, 409, 429].includes(status);
}

function isPending(error: unknown): boolean {
  return error instanceof DomainError && error.code === 'outcome_pending';
}
