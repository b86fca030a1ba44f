import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { Clock } from '../primitives/clock';
import { AppConfig, BookingHold } from '../config/app-config';
import { SealedValue } from '../redis/at-rest-cipher';
import { BatchStep, KeyValueStore, steps } from '../redis/key-value-store';
import { RedisKeys, TargetWrites } from '../redis/redis-keys';
import { GuestyClient } from '../upstream/guesty-client';
import { ReservedUntil } from '../upstream/platform-results';
import { Priority } from '../upstream/outbound-rate-limiter';
import { forSession, Reconciliation, WriteIntent, WriteTarget, quoteOf } from '../journal/write-intent';
import { TargetRecord } from '../journal/write-journal';
import { JournaledWrite } from '../journal/write-kind';
import { JournaledWriteKind } from '../journal/write-kinds';

/**
 * BOOKING_HOLD in the upstream's `reservedUntil` words, sent as strings: the reference types the field
 * `string` (its example "-1"), though its enum lists the fractions as numbers (docs/upstream.md).
 */
export const RESERVED_UNTIL: Record<BookingHold, { value: ReservedUntil; ms: number }> = {
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
 * them never stops a checkout. The writes after a card (attach, confirm, cancel) keep checkout priority.
 */
export const BEFORE_A_CARD: Priority = 'anonymous';

/** The quote's booking record outlives any retry of its Idempotency-Key. */
const BOOKING_RECORD_TTL_MS = 24 * 3_600_000;

export interface CreatedReservation {
  reservationId: string;
  confirmationCode: string;
  guestId: string;
  checkIn: string;
  checkOut: string;
  holdExpiresAt?: string;
}

/**
 * What a quote's writes record once booked: by which key, the reservation, and the session opened
 * on it, by its ref (a digest of its id; a record written before the ref carries the id).
 */
export interface BookingRecord {
  keyDigest: string;
  reservation: CreatedReservation;
  sessionRef?: string;
  sessionId?: string;
}

/** The booking record as the journal keeps it beside a quote's writes (`{quote}:booking`). */
export const BOOKING_RECORD: TargetRecord<BookingRecord> = {
  key: (writes: TargetWrites) => writes.booking,
  parse: (raw: string) => JSON.parse(raw) as BookingRecord,
};

export interface ReservationCreatePayload {
  ratePlanId?: string;
  guestId: string;
  /** Whose booking it is (a digest of the Idempotency-Key): another key answers quote_used. */
  keyDigest: string;
  /** The service's own quote id, and its stay (what the reservation answers when the platform leaves it out). */
  quoteId: string;
  checkIn: string;
  checkOut: string;
  /** The session to be opened on the reservation: its id names the booking's unpaid hold, kept across retries. */
  sessionId: string;
  /** The same id sealed (never in the clear at rest), kept in the intent so a retry opens the same session. */
  sealedSessionId: SealedValue;
}

/** A reservation create as the journal records it: enough to find it upstream (the quote's reservationId). */
export interface ReservationCreateRequest {
  upstreamQuoteId: string;
  ratePlanId?: string;
  guestId: string;
  keyDigest: string;
  quoteId: string;
  sealedSessionId?: SealedValue;
}

/**
 * A reservation made from a quote, held as `reserved` for BOOKING_HOLD, on the quote (its lease,
 * its intents). Found by re-reading the quote, which carries `reservationId` once a reservation was
 * made from it. Landing records the quote's booking beside it.
 */
@JournaledWriteKind()
@Injectable()
export class ReservationCreateWrite extends JournaledWrite<ReservationCreatePayload, ReservationCreateRequest, CreatedReservation> {
  readonly name = 'reservation-create';

  constructor(
    guesty: GuestyClient,
    private readonly keys: RedisKeys,
    @Inject(KeyValueStore) private readonly store: KeyValueStore,
    private readonly clock: Clock,
    private readonly config: ConfigService<AppConfig, true>,
  ) {
    super(guesty);
  }

  describe(target: WriteTarget, payload: ReservationCreatePayload) {
    const { ratePlanId, guestId, keyDigest, quoteId, sessionId, sealedSessionId } = payload;
    return {
      request: { upstreamQuoteId: quoteOf(target), ...(ratePlanId ? { ratePlanId } : {}), guestId, keyDigest, quoteId, sealedSessionId },
      context: forSession(sessionId),
    };
  }

  async send(target: WriteTarget, payload: ReservationCreatePayload): Promise<CreatedReservation> {
    const hold = this.hold();
    const answer = await this.guesty.createReservationFromQuote(
      {
        quoteId: quoteOf(target),
        status: 'reserved',
        ...(payload.ratePlanId ? { ratePlanId: payload.ratePlanId } : {}),
        reservedUntil: hold.value,
        guestId: payload.guestId,
      },
      BEFORE_A_CARD,
    );
    return {
      reservationId: answer.reservationId,
      confirmationCode: answer.confirmationCode ?? '',
      guestId: answer.guestId ?? payload.guestId,
      // The quote's dates: the answer gives date-times whose local day needs the listing's time zone.
      checkIn: payload.checkIn,
      checkOut: payload.checkOut,
      holdExpiresAt: answer.holdEndsAt ?? new Date(this.clock.now() + hold.ms).toISOString(),
    };
  }

  /** A create without a clear answer: the quote says whether a reservation was made from it. */
  async find(intent: WriteIntent<ReservationCreateRequest, CreatedReservation>): Promise<Reconciliation<CreatedReservation>> {
    const quote = await this.guesty.getQuote(intent.request.upstreamQuoteId);
    if (!quote?.reservationId) return { notLanded: 'the quote has no reservation' };
    const reservation = await this.guesty.getReservation(quote.reservationId, 'checkout', []);
    return {
      landed: {
        reservationId: quote.reservationId,
        confirmationCode: reservation?.confirmationCode ?? '',
        guestId: reservation?.guestId ?? intent.request.guestId,
        checkIn: quote.checkIn ?? reservation?.checkIn?.slice(0, 10) ?? '',
        checkOut: quote.checkOut ?? reservation?.checkOut?.slice(0, 10) ?? '',
        // The hold started when the create was sent, at the latest.
        holdExpiresAt: new Date(intent.sentAt + this.hold().ms).toISOString(),
      },
    };
  }

  override alongside(intent: WriteIntent<ReservationCreateRequest, CreatedReservation>, outcome: CreatedReservation): BatchStep[] {
    const record: BookingRecord = { keyDigest: intent.request.keyDigest, reservation: outcome };
    return [steps.write(this.writesOf(intent.target).booking, JSON.stringify(record), BOOKING_RECORD_TTL_MS)];
  }

  /** The session opened on the quote's reservation (by its ref), beside its booking: a retry of the key answers it. */
  async recordSession(target: WriteTarget, record: BookingRecord, sessionRef: string): Promise<void> {
    await this.store
      .set(this.writesOf(target).booking, JSON.stringify({ ...record, sessionRef } satisfies BookingRecord), {
        ttlMs: BOOKING_RECORD_TTL_MS,
      })
      .catch(() => false);
  }

  /** How long a reservation made from a quote holds its dates unpaid (BOOKING_HOLD). */
  hold(): { value: ReservedUntil; ms: number } {
    return RESERVED_UNTIL[this.config.get('booking', { infer: true }).hold];
  }

  private writesOf(target: WriteTarget): TargetWrites {
    return this.keys.quoteWrites(quoteOf(target));
  }
}
