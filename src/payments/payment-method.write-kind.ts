import { Injectable } from '@nestjs/common';
import { Clock } from '../primitives/clock';
import { DomainError } from '../common/errors/domain-error';
import { ProductEventBus } from '../common/events/product-event-bus';
import { BatchStep, steps } from '../redis/key-value-store';
import { RedisKeys } from '../redis/redis-keys';
import { GuestyClient } from '../upstream/guesty-client';
import { PaymentMethodOnFile } from '../upstream/platform-results';
import { forSession, Reconciliation, sessionRefOf, WriteIntent, WriteTarget, reservationOf } from '../journal/write-intent';
import { JournaledWrite } from '../journal/write-kind';
import { FollowUps } from '../journal/follow-ups';
import { HoldEnd, holdOnPlatform } from './booking-hold';
import { CardOnFile, CardsOnFile } from '../sessions/cards-on-file';
import { currentCard, replaceableCard } from './card-replacement';
import { JournaledWriteKind } from '../journal/write-kinds';

/** The session an attach is for, as far as the attach needs it. */
export interface AttachingSession {
  id: string;
  reservationId: string;
  /** The reservation's confirmation code, when the session knows it (the current attach links by it). */
  confirmationCode?: string;
  guestId: string;
}

export interface PaymentMethodPayload {
  session: AttachingSession;
  attemptId: string;
  tokenId: string;
  paymentProviderId: string;
  last4: string;
  brand?: string;
  /** A replacement for a card whose charge failed (docs/product-spec.md §6.5): the card it replaces may be on the reservation. */
  replacing: boolean;
  /** A booking's session: its reservation, read for the hold, is the attach's snapshot in place of the methods list. */
  hold?: BookingHold;
  /** The reservation's cards as the caller read them under this lease (methodsBefore, beside the tokenization): not read twice. */
  before?: string[];
  /** The booking is confirmed once its card is on file: recorded with the card, carried out even if this replica dies. */
  confirmsBooking?: boolean;
}

/**
 * A booking's hold as the attach needs it (docs/product-spec.md §3.1). The platform keeps the hold:
 * its reservation is read once before the attach, and that read is the snapshot (the methods its
 * payments are charged on), so the hold check costs no extra call.
 */
export interface BookingHold {
  /** When the reservation's create said the hold ends; the platform's own end wins when its read carries one. */
  holdExpiresAt?: string;
}

/** 409 hold_expired: the booking's reservation holds its dates no more; `ended` says how (the session shows it). */
export class HoldEnded extends DomainError {
  constructor(readonly ended: HoldEnd) {
    super('hold_expired', 'The reservation stopped holding these dates before it was paid. Please make a new booking.');
  }
}

/**
 * 409 already_paid for a card the platform shows on the reservation that this service's record
 * lacked (Redis lost it with the attach that put it there, or it was added elsewhere): `card` is
 * that card, which becomes the session's card on file (docs/product-spec.md §6.8).
 */
export class CardFoundOnReservation extends DomainError {
  constructor(
    readonly card: AttachedMethod,
    readonly paymentProviderId: string | undefined,
  ) {
    super('already_paid', 'A payment method is already on file for this reservation; no other card can be added here.');
  }
}

function foundOnReservation(method: PaymentMethodOnFile): CardFoundOnReservation {
  return new CardFoundOnReservation(
    { paymentMethodId: method.id, last4: method.last4 ?? '', ...(method.brand ? { brand: method.brand } : {}) },
    method.paymentProviderId,
  );
}

/** The card on file a found card makes, as this session's. */
function cardOnFileOf({ card }: CardFoundOnReservation, sessionId: string): CardOnFile {
  return {
    paymentMethodId: card.paymentMethodId,
    sessionRef: RedisKeys.sessionRef(sessionId),
    ...(card.last4 ? { last4: card.last4 } : {}),
    ...(card.brand ? { brand: card.brand } : {}),
  };
}

/** An attach as the journal records it: enough to recognise it upstream, no card data. */
interface AttachRequest {
  guestId: string;
  confirmationCode?: string;
  tokenId: string;
  paymentProviderId: string;
  last4: string;
  brand?: string;
}

export interface AttachedMethod {
  paymentMethodId: string;
  last4: string;
  brand?: string;
}

function onReservation(method: PaymentMethodOnFile, reservationId: string): boolean {
  return method.reservationId === reservationId && method.status !== 'INACTIVE';
}

function unreadable(cause: unknown, before: string): DomainError {
  // The platform answering unexpectedly keeps its own code: the operator has to act, not the guest's patience.
  if (cause instanceof DomainError && cause.code === 'platform_answer_unexpected') return cause;
  return new DomainError(
    'upstream_unavailable',
    `The booking platform could not be read before ${before}; nothing was attached. Please try again shortly.`,
    { retryAfterSeconds: 1, cause },
  );
}

/** An attach as the journal keeps it: what was sent (no card data) and, once it landed, the method. */
export type AttachIntent = WriteIntent<AttachRequest, AttachedMethod>;

/**
 * A payment method attached to a reservation (docs/product-spec.md §3, §6). The snapshot is the
 * platform's word on one card per reservation: a method already there refuses the attach (409
 * already_paid) unless a replacement replaces it. Found as a new method under the provider it was
 * tokenized with; landing puts the card on file and drops the cached payment status.
 */
@JournaledWriteKind()
@Injectable()
export class PaymentMethodWrite extends JournaledWrite<PaymentMethodPayload, AttachRequest, AttachedMethod> {
  readonly name = 'payment-method';

  constructor(
    guesty: GuestyClient,
    private readonly cards: CardsOnFile,
    private readonly events: ProductEventBus,
    private readonly clock: Clock,
    private readonly keys: RedisKeys,
    private readonly followUps: FollowUps,
  ) {
    super(guesty);
  }

  /** Whether `intent` is an attach of this session's card. */
  isAttachOf(intent: WriteIntent, sessionId: string): boolean {
    return intent.kind === this.name && sessionRefOf(intent.context) === RedisKeys.sessionRef(sessionId);
  }

  describe(_target: WriteTarget, payload: PaymentMethodPayload) {
    const { session, attemptId, tokenId, paymentProviderId, last4, brand, confirmsBooking } = payload;
    return {
      request: {
        guestId: session.guestId,
        ...(session.confirmationCode ? { confirmationCode: session.confirmationCode } : {}),
        tokenId,
        paymentProviderId,
        last4,
        ...(brand ? { brand } : {}),
      },
      context: { ...forSession(session.id), attemptId, ...(confirmsBooking ? { confirmsBooking: true as const } : {}) },
    };
  }

  override async snapshot(_target: WriteTarget, { session, replacing, hold, before }: PaymentMethodPayload): Promise<string[]> {
    // The code the attach links the card by is known before the intent is recorded (a session opened
    // before sessions kept it reads it here): the send that follows the fence reads nothing.
    await this.knowCode(session);
    return before ?? this.methodsBefore(session, { replacing, hold });
  }

  /**
   * The reservation's cards before an attach, as the platform shows them now (the attach's snapshot),
   * read by the card path beside the tokenization: a card already there refuses the attach (409
   * already_paid), a booking's ended hold 409 hold_expired, and a replacement needs its failed card.
   */
  async methodsBefore(session: AttachingSession, { replacing, hold }: { replacing: boolean; hold?: BookingHold }): Promise<string[]> {
    await this.knowCode(session);
    // A replacement: the card it replaces is on the reservation, the only one that may be.
    if (replacing) return (await this.replacedCard(session)).methods.map((method) => method.id);
    if (hold) return this.heldBooking(session, hold);
    let methods: PaymentMethodOnFile[];
    try {
      methods = await this.guesty.listPaymentMethods(session.guestId, session.reservationId, 'checkout', session.confirmationCode);
    } catch (cause) {
      throw unreadable(cause, 'adding the card');
    }
    const existing = methods.find((method) => onReservation(method, session.reservationId));
    if (existing) {
      const found = foundOnReservation(existing);
      await this.cards.record(session.reservationId, cardOnFileOf(found, session.id));
      throw found;
    }
    return methods.map((method) => method.id);
  }

  /** The session's confirmation code, read once when the session does not know it (sessions opened before they kept it). */
  private async knowCode(session: AttachingSession): Promise<void> {
    if (session.confirmationCode) return;
    try {
      session.confirmationCode = await this.guesty.confirmationCodeOf(session.reservationId);
    } catch (cause) {
      throw unreadable(cause, 'adding the card');
    }
  }

  async send(_target: WriteTarget, payload: PaymentMethodPayload): Promise<AttachedMethod> {
    const { session, tokenId, paymentProviderId, last4, brand } = payload;
    const attached = await this.guesty.attachPaymentMethod({
      guestId: session.guestId,
      tokenId,
      paymentProviderId,
      reservationId: session.reservationId,
      confirmationCode: session.confirmationCode,
    });
    return { paymentMethodId: attached.id, last4: last4 || attached.last4 || '', brand: brand ?? attached.brand };
  }

  /**
   * Recognises this service's attach on the reservation: a method that was not there before the
   * write (the snapshot), under the provider it was tokenized with, with its card's last four digits
   * when they are known. A method that existed before the intent is never "ours".
   */
  async find(intent: WriteIntent<AttachRequest, AttachedMethod>): Promise<Reconciliation<AttachedMethod>> {
    const { request } = intent;
    const methods = await this.guesty.listPaymentMethods(
      request.guestId,
      reservationOf(intent.target),
      'checkout',
      request.confirmationCode,
    );
    const before = new Set(intent.snapshot);
    const ours = methods.filter((method) => {
      const { last4 } = method;
      return (
        !before.has(method.id) &&
        (method.paymentProviderId === undefined || method.paymentProviderId === request.paymentProviderId) &&
        (!request.last4 || last4 === undefined || last4 === request.last4)
      );
    });
    const landed = ours[ours.length - 1];
    if (!landed) return { notLanded: 'no new payment method on the reservation' };
    return {
      landed: {
        paymentMethodId: landed.id,
        last4: request.last4 || landed.last4 || '',
        brand: request.brand ?? landed.brand,
      },
    };
  }

  /**
   * Beside a landed attach: the card on file (when the intent names its session), and the end of the
   * payment-status answer served before it, stale now (whoever settles it: its request, the sweep, a
   * later request), so the next poll reads the platform afresh.
   */
  override alongside(intent: WriteIntent<AttachRequest, AttachedMethod>, outcome: AttachedMethod): BatchStep[] {
    const reservationId = reservationOf(intent.target);
    const sessionRef = sessionRefOf(intent.context);
    const card = sessionRef
      ? this.cards.recordStep(reservationId, {
          paymentMethodId: outcome.paymentMethodId,
          sessionRef,
          last4: outcome.last4,
          ...(outcome.brand ? { brand: outcome.brand } : {}),
        })
      : [];
    // The booking's confirmation is due from the step the card lands in, not from this replica's memory.
    const confirm =
      sessionRef && intent.context.confirmsBooking ? [this.followUps.step({ kind: 'confirm-booking', reservationId, sessionRef })] : [];
    // The answer and its reader's lock go together: a read begun before the card then stores nothing.
    const status = this.keys.paymentStatus(reservationId);
    return [...card, ...confirm, steps.remove(status.answer), steps.remove(status.lock)];
  }

  /** The sweep (or another request) settled an attach its own request could not: its session is told. */
  override async settledElsewhere(intent: WriteIntent<AttachRequest, AttachedMethod>): Promise<void> {
    const { sessionRef, sessionId } = intent.context;
    if (!(sessionRef || sessionId) || !['landed', 'not_landed', 'fenced'].includes(intent.state)) return;
    await this.events.publish('attach.settled', {
      reservationId: reservationOf(intent.target),
      session: { sessionRef, sessionId },
      paymentProviderId: intent.request.paymentProviderId,
      ...(intent.state === 'landed' && intent.outcome ? { attached: intent.outcome } : {}),
    });
  }

  /**
   * A booking's reservation as the platform holds it now, read before anything is sent for a card: a
   * hold that ended throws HoldEnded (409 hold_expired); a held one answers the cards on file for it
   * (the attach's snapshot), and a card already on it is the one on file (§6.8): 409 already_paid.
   */
  async heldBooking(session: AttachingSession, hold: BookingHold): Promise<string[]> {
    let reservation: Awaited<ReturnType<GuestyClient['getReservation']>>;
    try {
      // The session knows the reservation's guest and code: its cards are read beside the reservation.
      reservation = await this.guesty.getReservation(session.reservationId, 'checkout', ['cards'], {
        guestId: session.guestId,
        ...(session.confirmationCode ? { confirmationCode: session.confirmationCode } : {}),
      });
    } catch (cause) {
      throw unreadable(cause, 'adding the card');
    }
    // A reservation the read did not answer, or a status it cannot use, is loud: never "ended", never "held".
    const status = this.guesty.statusRelied(reservation, session.reservationId);
    const state = holdOnPlatform({ status, holdEndsAt: reservation?.holdEndsAt }, hold.holdExpiresAt, this.clock.now());
    if (state !== 'held') throw new HoldEnded(state);
    const methods = reservation!.cardsOnFile ?? [];
    if (methods.length > 0) {
      const paymentMethodId = methods[methods.length - 1];
      // The reservation names its card by id alone: its digits are read (rare: a record Redis lost).
      const listed = await this.guesty
        .listPaymentMethods(session.guestId, session.reservationId, 'checkout', session.confirmationCode)
        .catch(() => []);
      const found = foundOnReservation(listed.find((method) => method.id === paymentMethodId) ?? { id: paymentMethodId });
      await this.cards.record(session.reservationId, cardOnFileOf(found, session.id));
      throw found;
    }
    return methods;
  }

  /**
   * The card a replacement takes the place of: the reservation's current card, with a failed charge
   * and nothing else waiting on it, as the platform shows them now. Otherwise the platform's card
   * is recorded as the one on file and the replacement is refused (409 already_paid).
   */
  async replacedCard(session: AttachingSession): Promise<{ replaced: string; methods: PaymentMethodOnFile[] }> {
    let methods: PaymentMethodOnFile[];
    let reservation: Awaited<ReturnType<GuestyClient['getReservation']>>;
    try {
      [methods, reservation] = await Promise.all([
        this.guesty.listPaymentMethods(session.guestId, session.reservationId, 'checkout', session.confirmationCode),
        this.guesty.getReservation(session.reservationId, 'checkout', ['payments']),
      ]);
    } catch (cause) {
      throw unreadable(cause, 'replacing the card');
    }
    const replaced = replaceableCard(methods, reservation?.money?.payments ?? [], session.reservationId);
    if (replaced) return { replaced, methods };
    const current = currentCard(methods, session.reservationId);
    if (current)
      await this.cards.record(session.reservationId, { paymentMethodId: current.id, sessionRef: RedisKeys.sessionRef(session.id) });
    throw new DomainError(
      'already_paid',
      'The card on file for this reservation has no failed charge to mend; no other card can be added here.',
    );
  }
}
