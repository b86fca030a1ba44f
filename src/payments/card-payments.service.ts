import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { randomBytes } from 'node:crypto';
import { RequestLimits } from '../common/abuse/request-limits';
import { Clock } from '../primitives/clock';
import { DomainError } from '../common/errors/domain-error';
import { OnProductEvent } from '../common/events/on-product-event';
import { ProductEventBus } from '../common/events/product-event-bus';
import { ProductEvents } from '../common/events/product-events';
import { AppConfig } from '../config/app-config';
import { GuestyClient } from '../upstream/guesty-client';
import { UpstreamError } from '../upstream/upstream-error';
import {
  AttachedMethod,
  AttachIntent,
  BookingHold,
  CardFoundOnReservation,
  HoldEnded,
  PaymentMethodWrite,
} from './payment-method.write-kind';
import { alreadyPaid, attachedMove, CARD_ON_FILE, CardOnFile, ownCardMove } from '../sessions/cards-on-file';
import { onReservation } from '../journal/write-intent';
import { HeldTarget, WriteJournal } from '../journal/write-journal';
import { MetricsService } from '../metrics/metrics.service';
import { attachKey } from '../sessions/attach-key';
import { PaymentProviders } from '../upstream/payment-providers';
import { CheckoutSession, CheckoutSessionView, holdEnded, PendingAttempt, sessionNotFound, toView } from '../sessions/checkout-session';
import { phaseOf } from '../sessions/session-moves';
import { SessionState } from '../sessions/session-state';
import { AttachProgress } from '../sessions/attach-progress';
import { RedisKeys } from '../redis/redis-keys';
import { recordVia, StepsBeside, stepsVia } from '../redis/key-value-store';
import { IdempotencyService } from '../common/idempotency/idempotency.service';
import { cardBrand } from './dto/card-rules';
import { BillingDetailsDto, CardDto } from './dto/payment-method.dto';
import { PresentedState, ThreeDsOutcome, ThreeDsStates } from './three-ds-states';
import { refusalError } from './tokenize-outcome';

/**
 * The request's stored answer as steps of the session's slot, built from the session's view: written
 * in the same step as the session's outcome once the card is attached (Idempotency's AnswerBeside).
 */
export type ViewBeside = StepsBeside<CheckoutSessionView>;

export interface CardSubmission {
  card: CardDto;
  billing_details: BillingDetailsDto;
}

export type { ThreeDsOutcome } from './three-ds-states';

/** What the site's page is told after a 3-D Secure return (docs/product-spec.md §3). */
export type ThreeDsReturnStatus = 'succeeded' | 'failed' | 'processing';

/** A return's answer, and how it is counted in /metrics. */
interface ReturnAnswer {
  status: ThreeDsReturnStatus;
  counted: string;
}

/** The journal's key of an attach, and what the request already knows for it. */
interface AttachStep {
  key: string;
  /** The request's answer, stored in the step that records the session's outcome (see ViewBeside). */
  answered?: ViewBeside;
  /** The reservation's cards as read under this lease already (a replacement's check): the attach's snapshot, not read twice. */
  before?: string[];
  /** Whether the press's card reached the platform (tokenization or attach sent): only then is its attempt spent. */
  card?: { reached: boolean };
}

/** The journal's answers that say nothing was sent: a card refused with them never reached the platform. */
function sentNothing(error: unknown): boolean {
  return hasCode(error, 'step_in_progress') || hasCode(error, 'store_unavailable');
}

/** What an attach needs of the reservation it holds: its one journaled send. */
type Attaching = Pick<HeldTarget, 'send'>;

const SUBMITTABLE = new Set(['requires_payment_method', 'requires_action', 'failed']);
const ATTEMPT_TTL_MS = 30 * 60_000;
/** A 3-D Secure return waits this long for another step on the reservation before answering `processing`. */
const RETURN_LEASE_WAIT_MS = 5_000;

function holdExpired(): DomainError {
  return new DomainError('hold_expired', 'The reservation stopped holding these dates before it was paid. Please make a new booking.');
}

function hasCode(error: unknown, code: string): error is DomainError {
  return error instanceof DomainError && error.code === code;
}

/**
 * The card choreography of docs/product-spec.md §3: the listing's provider → tokenize (3-D Secure
 * return URLs carry one-time states) → attach, now or after the issuer page. Every attach goes
 * through the write journal under the reservation's lease (§6), so one request never attaches twice
 * nor says "failed" for a card that landed. Only last4 and brand are kept.
 */
@Injectable()
export class CardPaymentsService implements AttachProgress {
  private readonly logger = new Logger('CardPayments');

  constructor(
    private readonly guesty: GuestyClient,
    private readonly providers: PaymentProviders,
    private readonly sessions: SessionState,
    private readonly states: ThreeDsStates,
    private readonly limits: RequestLimits,
    private readonly config: ConfigService<AppConfig, true>,
    private readonly clock: Clock,
    private readonly metrics: MetricsService,
    private readonly journal: WriteJournal,
    private readonly paymentMethods: PaymentMethodWrite,
    private readonly events: ProductEventBus,
    private readonly idempotency: IdempotencyService,
  ) {}

  submitCard(
    known: CheckoutSession,
    submission: CardSubmission,
    idempotencyKey: string,
    answered?: ViewBeside,
  ): Promise<CheckoutSessionView> {
    const sessionId = known.id;
    return this.submission(known, idempotencyKey, answered, async (session, lease, intent) => {
      // The reservation's cards (a booking's: its hold) are read beside the tokenization, for the
      // attach's snapshot (docs/product-spec.md §3). A card they find there refuses the press, and
      // the token made meanwhile is never attached: tokens are single-use (docs/upstream.md).
      // Both settle before the press answers: nothing of it outlives its lease, and a card that reached the platform spends its attempt.
      const [read, tokenizing] = await Promise.allSettled([
        this.cardsBefore(session, intent, submission.card.number.slice(-4)),
        this.tokenize(session, submission, intent),
      ]);
      if (read.status === 'rejected') throw read.reason;
      if (tokenizing.status === 'rejected') throw tokenizing.reason;
      const [before, tokenized] = [read.value, tokenizing.value];
      // This very card was already on the reservation (its earlier press's record was lost): that is the answer.
      if (!Array.isArray(before)) return before.answer;
      if ('refused' in tokenized) return this.fail(session, tokenized.refused);
      const { attempt, authUrl, states } = tokenized;
      if (!authUrl) return this.attach(session, attempt, lease, { ...intent, before });
      if (!this.acceptableRedirect(authUrl)) {
        return this.fail(
          session,
          new DomainError('upstream_error', 'The card issuer asked for authentication at an address the service does not trust.'),
        );
      }
      // Stored only now: the guest reaches the return URLs through the answer below, never before it.
      await this.states.keep({ sessionId, attemptId: attempt.id }, states, Math.min(ATTEMPT_TTL_MS, session.expiresAt - this.clock.now()));
      const waiting = await this.sessions.move(sessionId, { move: 'authenticationRequired', attempt, redirectUrl: authUrl });
      return toView(waiting);
    });
  }

  /**
   * The card tokenized with the listing's provider: the attempt it makes, with the issuer's page when
   * it asks for 3-D Secure, or the refusal the session is to record.
   */
  private async tokenize(
    session: CheckoutSession,
    submission: CardSubmission,
    intent: AttachStep,
  ): Promise<{ refused: DomainError } | { attempt: PendingAttempt; authUrl?: string; states: Record<ThreeDsOutcome, string> }> {
    const sessionId = session.id;
    const provider = await this.providers.forListing(session.listingId);
    if (!provider || provider.status !== 'ACTIVE') {
      return {
        refused: new DomainError(
          'payment_account_unavailable',
          'Card payments are not available for this property right now; please try again later.',
        ),
      };
    }
    const attemptId = randomBytes(12).toString('base64url');
    const states = this.states.mint();
    const base = `${this.config.get('http', { infer: true }).publicBaseUrl}/checkout/3ds/${encodeURIComponent(sessionId)}`;
    if (intent.card) intent.card.reached = true;
    const answer = await this.guesty.tokenizeCard({
      paymentProviderId: provider.paymentProviderId,
      listingId: session.listingId,
      card: submission.card,
      billing_details: submission.billing_details,
      threeDS: {
        amount: session.amount,
        currency: session.currency,
        successURL: `${base}/success?state=${states.success}`,
        failureURL: `${base}/failure?state=${states.failure}`,
      },
      // The attempt, not the session: the session id is the guest's capability and stays theirs.
      merchantData: { transactionId: attemptId },
    });
    if (answer.kind === 'refused') {
      if (answer.reason === 'payment_account') {
        this.logger.error(
          {
            paymentProviderId: provider.paymentProviderId,
            listingId: session.listingId,
            upstreamStatus: answer.status,
            upstreamRequestId: answer.requestId,
          },
          'tokenization refused with 402: the payment account is faulty or offline (clearing interface configuration / BIN or host); operators must check it',
        );
      }
      return { refused: refusalError(answer) };
    }
    const attempt: PendingAttempt = {
      id: attemptId,
      tokenId: answer.token._id,
      paymentProviderId: provider.paymentProviderId,
      last4: submission.card.number.slice(-4),
      brand: cardBrand(submission.card.number),
    };
    return { attempt, authUrl: answer.token.threeDS?.authURL, states };
  }

  /** A token the site made with the upstream's own form: attached the same way, card data never seen. */
  submitToken(known: CheckoutSession, tokenId: string, idempotencyKey: string, answered?: ViewBeside): Promise<CheckoutSessionView> {
    return this.submission(known, idempotencyKey, answered, (session, lease, intent) => {
      const attempt: PendingAttempt = {
        id: randomBytes(12).toString('base64url'),
        tokenId,
        paymentProviderId: session.paymentProviderId,
        last4: '',
      };
      return this.attach(session, attempt, lease, intent);
    });
  }

  /**
   * The reservation's cards before a card's attach (its snapshot): what the session's check read
   * already, else read now (a booking's through its hold); or the press's answer when this very
   * card is found there already (`cardFound`).
   */
  private async cardsBefore(
    session: CheckoutSession,
    intent: AttachStep,
    pressedLast4: string,
  ): Promise<string[] | { answer: CheckoutSessionView }> {
    if (intent.before !== undefined) return intent.before;
    try {
      return await this.paymentMethods.methodsBefore(session, {
        replacing: phaseOf(session) === 'replacing',
        ...(session.booking ? { hold: { holdExpiresAt: session.booking.holdExpiresAt } } : {}),
      });
    } catch (error) {
      if (error instanceof CardFoundOnReservation) {
        const found = await this.cardFound(session, error, pressedLast4);
        if (found instanceof CardFoundOnReservation) throw found;
        return { answer: found };
      }
      // An ended hold is the booking's to show; the session still takes no card, as before any press.
      if (!(error instanceof HoldEnded)) return this.attachFailed(session, error);
      await this.bookingEnded(session, error);
      throw error;
    }
  }

  /**
   * A 3-D Secure return. The state is consumed first and opens only its own path, so a replay, a
   * forged or swapped state, or a second replica receiving the same return changes nothing.
   */
  async completeThreeDs(sessionId: string, outcome: ThreeDsOutcome, stateValue: string | undefined): Promise<ThreeDsReturnStatus> {
    const result = await this.applyThreeDs(sessionId, outcome, stateValue);
    this.metrics.threeDsReturns.inc({ outcome: result.counted });
    return result.status;
  }

  private async applyThreeDs(sessionId: string, outcome: ThreeDsOutcome, stateValue: string | undefined): Promise<ReturnAnswer> {
    // Checked, not spent: the state is consumed only once the return holds the reservation.
    const checked = await this.presentedState(() => this.states.peek(sessionId, outcome, stateValue), sessionId, outcome);
    if ('answer' in checked) return checked.answer;
    const known = await this.sessionForReturn(sessionId);
    if (!known) return this.refusedReturn(sessionId);
    let holding = false;
    try {
      return await this.journal.holding(
        onReservation(known.reservationId),
        async (held) => {
          holding = true;
          // Another arrival of this return may have held the reservation first: then it is the duplicate.
          const consumed = await this.presentedState(() => this.states.consume(sessionId, outcome, stateValue), sessionId, outcome);
          if ('answer' in consumed) return consumed.answer;
          return this.returnHolding(sessionId, outcome, consumed.attemptId, held);
        },
        { waitMs: RETURN_LEASE_WAIT_MS },
      );
    } catch (error) {
      if (hasCode(error, 'outcome_pending')) return { status: 'processing', counted: 'processing' };
      if (!holding) {
        // Another step held the reservation past the wait (or Redis did not answer): nothing was
        // consumed or sent, so the same return, opened again, still completes (docs/product-spec.md §6.7).
        this.logger.warn({ err: error, outcome }, 'a 3-D Secure return could not take the reservation yet; its state stays valid');
        return { status: 'processing', counted: 'busy' };
      }
      this.logger.warn({ err: error, outcome }, 'a 3-D Secure return ended without attaching the card');
      const now = await this.sessionForReturn(sessionId);
      return {
        status: now?.status === 'succeeded' ? 'succeeded' : now?.status === 'processing' ? 'processing' : 'failed',
        counted: 'failed',
      };
    }
  }

  /** The attempt a return's state opens on its own session's path, or the answer for anything else. */
  private async presentedState(
    read: () => Promise<PresentedState | null>,
    sessionId: string,
    outcome: ThreeDsOutcome,
  ): Promise<{ attemptId: string } | { answer: ReturnAnswer }> {
    let presented: PresentedState | null;
    try {
      presented = await read();
    } catch (error) {
      // Nothing was consumed or sent: the return can be repeated once Redis answers, and another
      // arrival of it (a duplicate on another replica) may be attaching the card right now. Never "failed".
      this.logger.warn({ err: error, outcome }, 'a 3-D Secure return could not be read from the store; nothing was attached by it');
      return { answer: { status: 'processing', counted: 'store_unavailable' } };
    }
    if (!presented) return { answer: await this.refusedReturn(sessionId) };
    // The same return twice (a double submit): the first one is attaching or did; never "failed" for it.
    if (presented.duplicate) return { answer: await this.duplicateReturn(sessionId, outcome) };
    return { attemptId: presented.attemptId };
  }

  /** A return's own step, holding the reservation and its consumed state: attach, or record the failure. */
  private async returnHolding(sessionId: string, outcome: ThreeDsOutcome, attempt: string, held: Attaching): Promise<ReturnAnswer> {
    const session = await this.sessions.load(sessionId);
    const pending = session?.pendingAttempt;
    const waiting = session?.status === 'requires_action' || (session !== null && phaseOf(session) === 'replacing');
    if (!session || !waiting || pending?.id !== attempt) return this.refusedReturn(sessionId);
    if (outcome === 'failure') {
      // fail() records the failure and rethrows it; a return answers with a redirect instead.
      await this.fail(
        session,
        new DomainError('card_declined', 'The card issuer did not confirm the payment. Please try again or use another card.'),
        'authentication_failed',
      ).catch(() => undefined);
      return { status: 'failed', counted: 'failed' };
    }
    const view = await this.attach(session, pending, held, { key: attachKey(sessionId, `attempt:${pending.id}`) });
    return { status: view.status === 'succeeded' ? 'succeeded' : 'failed', counted: view.status };
  }

  /** The session as a 3-D Secure return sees it; a store failure is logged and read as "unknown". */
  private sessionForReturn(sessionId: string): Promise<CheckoutSession | null> {
    return this.sessions.load(sessionId).catch((error: unknown) => {
      this.logger.warn({ err: error }, 'a 3-D Secure return could not read its session; the browser is sent on with what is known');
      return null;
    });
  }

  /** The second arrival of a return: what the first made of the session, `processing` while it still works. */
  private async duplicateReturn(sessionId: string, outcome: ThreeDsOutcome): Promise<ReturnAnswer> {
    const session = await this.sessionForReturn(sessionId);
    if (session?.status === 'succeeded' && !session.pendingAttempt) return { status: 'succeeded', counted: 'duplicate' };
    if (session?.status === 'failed' || outcome === 'failure') return { status: 'failed', counted: 'duplicate' };
    return { status: 'processing', counted: 'duplicate' };
  }

  /**
   * A return that may do nothing (a forged, swapped or stale state): it reports what the session
   * shows. A session still waiting for its own return is never told `failed`: `processing` sends the
   * page to read the session, which still offers the issuer's page.
   */
  private async refusedReturn(sessionId: string): Promise<ReturnAnswer> {
    const session = await this.sessionForReturn(sessionId);
    const waiting = session?.status === 'processing' || session?.status === 'requires_action';
    const status = session?.status === 'succeeded' ? 'succeeded' : waiting ? 'processing' : 'failed';
    return { status, counted: 'refused' };
  }

  /** AttachProgress: an attach the journal holds open on the reservation (a store that cannot tell: none). */
  async attachUnderWay(reservationId: string): Promise<boolean> {
    const intent = await this.journal.openIntent(onReservation(reservationId), this.paymentMethods).catch(() => null);
    return intent !== null;
  }

  /**
   * A card (tokenized here) or a token submitted to a session under its Idempotency-Key. The session
   * is read in the key's claim (404 before anything is written, the key included; 409 for a booking
   * whose hold ended), and the answer is stored in the step that records the session's outcome.
   */
  async submitPaymentMethod(
    sessionId: string,
    idempotencyKey: string | undefined,
    body: unknown,
    method: { token: string } | CardSubmission,
  ): Promise<CheckoutSessionView> {
    const readable = this.sessions.readable(sessionId);
    if (readable === null) throw sessionNotFound();
    const read = recordVia(readable, (session) => this.admitted(session));
    const answer = await this.idempotency.runOnSession<CheckoutSessionView, CheckoutSession>(
      `payment-method:${sessionId}`,
      idempotencyKey,
      body,
      { ref: RedisKeys.sessionRef(sessionId), read },
      async (known, answering) => {
        const answered = stepsVia(answering, (view: CheckoutSessionView) => ({ status: 200, body: view }));
        // runOnSession() has checked the key by now.
        const key = idempotencyKey!;
        const view =
          'token' in method
            ? await this.submitToken(known, method.token, key, answered)
            : await this.submitCard(known, method, key, answered);
        return { status: 200, body: view };
      },
    );
    return answer.body;
  }

  private async admitted(session: CheckoutSession | null): Promise<CheckoutSession> {
    if (!session) throw sessionNotFound();
    const sessionId = session.id;
    // A booking whose hold ended holds no dates any more: nothing is sent for it (docs/product-spec.md §3.1).
    if (holdEnded(session, this.clock.now())) {
      await this.sessions
        .move(sessionId, { move: 'holdEnded', now: this.clock.now() })
        .catch((cause: unknown) => this.logger.warn({ err: cause }, 'could not mark a booking expired on its session'));
      throw holdExpired();
    }
    return session;
  }

  /**
   * One card or token submission under its Idempotency-Key, holding the reservation's lease: the
   * outcome of an attach this key already sent, or `attach` for a session that may take a card now.
   */
  private async submission(
    known: CheckoutSession,
    idempotencyKey: string,
    answered: ViewBeside | undefined,
    attach: (session: CheckoutSession, held: Attaching, step: AttachStep) => Promise<CheckoutSessionView>,
  ): Promise<CheckoutSessionView> {
    const key = attachKey(known.id, `key:${idempotencyKey}`);
    const attempt = this.limits.cardAttempting(known.reservationId);
    const readable = this.sessions.readable(known.id);
    // One step: the lease, what the journal holds for this key, the session as it is now (read
    // holding the lease), the store's generation, and the card-testing guard's count of both shapes
    // (docs/product-spec.md §7), before anything reaches the upstream. The attach is the last write under the lease.
    return this.journal.holding(
      onReservation(known.reservationId),
      async (held) => {
        let spent = held.counted?.granted === true;
        const card = { reached: false };
        try {
          const [earlier] = held.intents;
          if (held.wasSent(earlier)) return await this.resume(known.id, earlier, held, { key, answered });
          // A hold after a store loss, or replicas that do not answer, are told before the card is tokenized.
          await held.storeReady();
          const { session, before } = await this.submittable(known, held);
          // Not counted in that step (it found this key's intent, or a card on file), yet an attach goes
          // out: one resent after the earlier surely never happened, or a replacement the session turned
          // to meanwhile. It spends its attempt in a step of its own: the guard has no side door.
          if (held.counted) attempt.admit(held.counted);
          else await attempt.take();
          spent = true;
          return await attach(session, held, { key, answered, card, ...(before ? { before } : {}) });
        } catch (error) {
          // A press whose card never reached the platform ("try again", or refused before it) spent no attempt.
          if (spent && !card.reached) await attempt.giveBack();
          throw error;
        }
      },
      {
        peek: [{ kind: this.paymentMethods, key }] as const,
        record: CARD_ON_FILE,
        endsWithWrite: true,
        storeFirst: true,
        alongside: {
          read: readable ?? undefined,
          count: attempt.request,
          // A card on file refuses the press before it spends an attempt, unless the press replaces it.
          unlessRecord: phaseOf(known) !== 'replacing',
        },
      },
    );
  }

  /**
   * The session, when a card may be submitted to it now: no outcome open on its reservation, no card
   * of this service's on file, a status that takes a card.
   */
  private async submittable(
    known: CheckoutSession,
    held: Pick<HeldTarget<[], CardOnFile, CheckoutSession | null>, 'openIntentId' | 'record' | 'read' | 'settleOpen' | 'readRecord'>,
  ): Promise<{ session: CheckoutSession; before?: string[] }> {
    const sessionId = known.id;
    let standing = { card: held.record, read: held.read };
    if (held.openIntentId) {
      const open = await held.settleOpen();
      if (open) {
        // This session's own card may still land (its replica died or timed out): the session says so.
        if (this.paymentMethods.isAttachOf(open, sessionId)) await this.markProcessing(sessionId);
        throw DomainError.outcomePending(
          'An earlier payment step on this reservation is still being confirmed with the booking platform; nothing else is sent until it is. Try again in a moment.',
        );
      }
      // Settling it may have put a card on file, and moved the session: both are read again.
      standing = { card: await held.readRecord(), read: null };
    }
    // `read`: the session as read with the lease (none: read it now).
    let session = standing.read ? await standing.read() : await this.sessions.require(sessionId);
    if (!session) throw sessionNotFound();
    if (session.status === 'processing' && !standing.card) {
      // Nothing open on the reservation and no card on file: its attach settled not landed, and the
      // session has not heard yet (the settling replica died, or its event is still on its way).
      session = await this.sessions.move(sessionId, { move: 'notAttached' }, session);
    }
    const attached = session.status === 'succeeded' ? null : ownCardMove(standing.card, session);
    if (attached) {
      // Its card is on file while the move that tells it was lost with its replica: the press records it.
      await this.sessions.move(sessionId, attached, session);
      throw alreadyPaid();
    }
    if (phaseOf(session) === 'replacing') {
      // A failed charge mended (docs/product-spec.md §6.5): only when the platform, read now, still
      // shows it. That read is the attach's snapshot too.
      const { methods } = await this.paymentMethods.replacedCard(session);
      return { session, before: methods.map((method) => method.id) };
    }
    if (!SUBMITTABLE.has(session.status)) {
      throw new DomainError('invalid_state', `This checkout session is ${session.status}; no payment method can be submitted.`);
    }
    if (standing.card) throw alreadyPaid();
    return { session };
  }

  /**
   * A request whose attach was already sent under this Idempotency-Key: its outcome (found by
   * reconciliation when it was unclear), never a second attach.
   */
  private async resume(sessionId: string, earlier: AttachIntent, held: Attaching, step: AttachStep): Promise<CheckoutSessionView> {
    const session = await this.sessions.require(sessionId);
    const { request } = earlier;
    const attempt: PendingAttempt = {
      id: earlier.context.attemptId ?? 'resumed',
      tokenId: request.tokenId,
      paymentProviderId: request.paymentProviderId,
      last4: request.last4,
      brand: request.brand,
    };
    return this.attach(session, attempt, held, step);
  }

  private async attach(
    session: CheckoutSession,
    attempt: PendingAttempt,
    held: Attaching,
    intent: AttachStep,
  ): Promise<CheckoutSessionView> {
    const replacement = phaseOf(session) === 'replacing';
    // A booking's hold is the platform's: the kind reads its reservation (unless read already under this lease) as the attach's snapshot.
    const hold: BookingHold | undefined = session.booking && !replacement ? { holdExpiresAt: session.booking.holdExpiresAt } : undefined;
    let method: AttachedMethod;
    try {
      method = await held.send(this.paymentMethods, intent.key, {
        session,
        attemptId: attempt.id,
        tokenId: attempt.tokenId,
        paymentProviderId: attempt.paymentProviderId,
        last4: attempt.last4,
        ...(attempt.brand ? { brand: attempt.brand } : {}),
        replacing: replacement,
        ...(hold ? { hold } : {}),
        ...(intent.before !== undefined ? { before: intent.before } : {}),
        // A booking that confirms on its card: the confirmation is recorded with the card, in one step.
        confirmsBooking: session.booking?.status === 'reserved' && this.config.get('booking', { infer: true }).confirmation === 'instant',
      });
    } catch (error) {
      if (intent.card && !sentNothing(error)) intent.card.reached = true;
      if (error instanceof CardFoundOnReservation) {
        const found = await this.cardFound(session, error, attempt.last4);
        if (!(found instanceof CardFoundOnReservation)) return found;
      }
      return this.attachFailed(session, error);
    }
    return this.attached(session, attempt.paymentProviderId, method, intent.answered);
  }

  /**
   * A card on the reservation the store's record lacked (lost with its attach, or added elsewhere)
   * is the session's card on file (docs/product-spec.md §6.8), not a reason to ask for another. The
   * same card pressed again is answered as landed; another card is refused 409 already_paid.
   */
  private async cardFound(
    session: CheckoutSession,
    found: CardFoundOnReservation,
    pressedLast4: string,
  ): Promise<CheckoutSessionView | CardFoundOnReservation> {
    if (session.status === 'succeeded') return found;
    const view = await this.attached(session, found.paymentProviderId ?? session.paymentProviderId, found.card, undefined, true);
    this.logger.warn(
      { reservationId: session.reservationId, paymentMethodId: found.card.paymentMethodId },
      "a card on the reservation the service's record lacked is the session's card on file",
    );
    return pressedLast4 !== '' && found.card.last4 === pressedLast4 ? view : found;
  }

  /** The session's booking says how its hold ended. */
  private async bookingEnded(session: CheckoutSession, ended: HoldEnded): Promise<void> {
    await this.sessions
      .move(session.id, { move: 'bookingEnded', status: ended.ended })
      .catch((cause: unknown) => this.logger.warn({ err: cause }, 'could not mark a booking ended on its session'));
  }

  private async attachFailed(session: CheckoutSession, error: unknown): Promise<never> {
    if (error instanceof HoldEnded) await this.bookingEnded(session, error);
    if (['already_paid', 'store_unavailable', 'invalid_state', 'step_in_progress'].some((code) => hasCode(error, code))) throw error;
    if (hasCode(error, 'outcome_pending')) {
      await this.markProcessing(session.id);
      throw error;
    }
    if (error instanceof UpstreamError && error.upstreamStatus !== undefined && error.upstreamStatus < 500) {
      // Answered, so nothing was attached. Only a refusal of the card itself is the guest's to fix;
      // a busy platform (429 past the deadline) or a refused service keeps its own code and status.
      if (error.code !== 'upstream_error') return this.fail(session, error);
      return this.fail(
        session,
        new DomainError('card_declined', 'The card could not be attached to the reservation. Please use another card.', { cause: error }),
      );
    }
    if (error instanceof DomainError) return this.fail(session, error);
    throw error;
  }

  /** The guest is told "we are confirming", and the site polls the session (docs/product-spec.md §6.6). */
  private async markProcessing(sessionId: string): Promise<void> {
    await this.sessions
      .move(sessionId, { move: 'outcomePending' })
      .catch((cause: unknown) =>
        this.logger.warn({ err: cause }, 'could not mark a checkout session processing; the journal keeps the open attach'),
      );
  }

  /** The journal recorded the card on file with the outcome (or the reconciler did): the session follows. */
  private async attached(
    session: CheckoutSession,
    tokenizedUnder: string,
    method: AttachedMethod,
    answered?: ViewBeside,
    foundOnFile = false,
  ): Promise<CheckoutSessionView> {
    const beside = answered && stepsVia(answered, toView);
    const succeeded = await this.sessions.recordOutcome(session.id, attachedMove(tokenizedUnder, method), session, beside);
    this.logger.log({ reservationId: session.reservationId, paymentMethodId: method.paymentMethodId }, 'payment method attached');
    await this.events.publish('card.attached', {
      reservationId: session.reservationId,
      sessionId: session.id,
      booked: !!session.booking,
      ...(foundOnFile ? { foundOnFile } : {}),
    });
    return toView(succeeded);
  }

  /** The journal (its sweep, or another request) settled an attach that its own request could not: the session follows. */
  @OnProductEvent('attach.settled', 'card payments')
  async onAttachSettled(event: ProductEvents['attach.settled']): Promise<void> {
    const { reservationId, attached } = event;
    const found = await this.sessions.pointedAt(event.session);
    if (!found) return;
    const sessionId = found.id;
    if (attached) {
      await this.sessions.move(sessionId, attachedMove(event.paymentProviderId, attached)).catch((error: unknown) => {
        if (!hasCode(error, 'session_not_found')) throw error;
      });
      this.logger.log({ reservationId, paymentMethodId: attached.paymentMethodId }, 'payment method attached (reconciled)');
      await this.events.publish('card.attached', { reservationId, sessionId, booked: !!found.booking });
      return;
    }
    await this.sessions.move(sessionId, { move: 'notAttached' }).catch((error: unknown) => {
      if (!hasCode(error, 'session_not_found')) throw error;
    });
  }

  /** Records the failure on the session (a new card may follow), then answers it. */
  private async fail(session: CheckoutSession, error: DomainError, code: string = error.code): Promise<never> {
    // A succeeded session (a replacement that failed) stays succeeded; only its 3-D Secure wait ends.
    await this.sessions
      .move(session.id, { move: 'failed', error: { code, message: error.detail } })
      .catch((cause: unknown) => this.logger.warn({ err: cause, code }, 'could not record a failed payment step on its session'));
    throw error;
  }

  private acceptableRedirect(url: string): boolean {
    try {
      const { protocol } = new URL(url);
      return protocol === 'https:' || (!this.config.get('runtime', { infer: true }).production && protocol === 'http:');
    } catch {
      return false;
    }
  }
}
