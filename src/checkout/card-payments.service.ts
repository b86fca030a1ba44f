import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { RequestLimits } from '../common/abuse/request-limits';
import { Clock } from '../common/clock';
import { DomainError } from '../common/errors/domain-error';
import { AppConfig } from '../config/app-config';
import { GuestyClient } from '../guesty/guesty-client';
import { UpstreamPaymentMethod } from '../guesty/guesty.types';
import { sleep } from '../guesty/retry-policy';
import { MetricsService } from '../metrics/metrics.service';
import { UpstreamError } from '../guesty/upstream-error';
import { PaymentProviders } from '../payments/payment-providers';
import { CheckoutSession, CheckoutSessionView, PendingAttempt, toView } from './checkout-session';
import { CheckoutSessionsStore } from './checkout-sessions.store';
import { CardDto, BillingDetailsDto } from './dto/payment-method.dto';
import { ThreeDsStates } from './three-ds-states';
import { readTokenizeAnswer } from './tokenize-outcome';
import { randomBytes } from 'node:crypto';

export interface CardSubmission {
  card: CardDto;
  billing_details: BillingDetailsDto;
}

export type ThreeDsOutcome = 'success' | 'failure';

const SUBMITTABLE = new Set(['requires_payment_method', 'requires_action', 'failed']);
const ATTEMPT_TTL_MS = 30 * 60_000;
/** Re-reads of the reservation's payment methods after an attach without a clear answer. */
const ATTACH_RECHECK_DELAYS_MS = [250, 750, 1500];

function cardBrand(number: string): string | undefined {
  if (/^4/.test(number)) return 'visa';
  if (/^(5[1-5]|2[2-7])/.test(number)) return 'mastercard';
  if (/^3[47]/.test(number)) return 'amex';
  if (/^6(011|5)/.test(number)) return 'discover';
  return undefined;
}

/**
 * The card choreography of SPEC.md §3: the listing's provider → tokenize (with 3-D Secure return
 * URLs carrying a one-time state) → attach the payment method, now or after the issuer page.
 * Card data passes through to the tokenization host and is never kept; only last4 and brand are.
 */
@Injectable()
export class CardPayments {
  private readonly logger = new Logger('CardPayments');

  constructor(
    private readonly guesty: GuestyClient,
    private readonly providers: PaymentProviders,
    private readonly sessions: CheckoutSessionsStore,
    private readonly states: ThreeDsStates,
    private readonly limits: RequestLimits,
    private readonly config: ConfigService<AppConfig, true>,
    private readonly clock: Clock,
    private readonly metrics: MetricsService,
  ) {}

  /** Validates the state machine before anything is spent (card attempts, tokenization). */
  async submittable(sessionId: string): Promise<CheckoutSession> {
    const session = await this.sessions.require(sessionId);
    if (!SUBMITTABLE.has(session.status)) {
      throw new DomainError('invalid_state', `This checkout session is ${session.status}; no payment method can be submitted.`);
    }
    return session;
  }

  submitCard(sessionId: string, submission: CardSubmission): Promise<CheckoutSessionView> {
    return this.sessions.withLock(sessionId, async () => {
      const session = await this.submittable(sessionId);
      // Counted only for submissions that will reach the tokenization host (card-testing guard).
      await this.limits.cardAttempt(session.reservationId);
      const provider = await this.providers.forListing(session.listingId);
      if (!provider || provider.status !== 'ACTIVE') {
        return this.fail(session, new DomainError('payment_account_unavailable', 'Card payments are not available for this property right now; please try again later.'));
      }
      const attemptId = randomBytes(12).toString('base64url');
      const state = await this.states.issue({ sessionId, attemptId }, Math.min(ATTEMPT_TTL_MS, session.expiresAt - this.clock.now()));
      const base = `${this.config.get('http', { infer: true }).publicBaseUrl}/checkout/3ds/${encodeURIComponent(sessionId)}`;
      const answer = await this.guesty.tokenizeCard({
        paymentProviderId: provider.paymentProviderId,
        listingId: session.listingId,
        card: submission.card,
        billing_details: submission.billing_details,
        threeDS: {
          amount: session.amount,
          currency: session.currency,
          successURL: `${base}/success?state=${state}`,
          failureURL: `${base}/failure?state=${state}`,
        },
        merchantData: { transactionId: sessionId },
      });
      const outcome = readTokenizeAnswer(answer);
      if (outcome.kind === 'refused') {
        if (outcome.accountProblem) {
          this.logger.error(
            { paymentProviderId: provider.paymentProviderId, listingId: session.listingId, upstreamStatus: answer.status, upstreamRequestId: answer.requestId },
            'tokenization refused with 402: the payment account is faulty or offline (clearing interface configuration / BIN or host); operators must check it',
          );
        }
        return this.fail(session, outcome.error);
      }
      const attempt: PendingAttempt = {
        id: attemptId,
        tokenId: outcome.token._id,
        paymentProviderId: provider.paymentProviderId,
        last4: submission.card.number.slice(-4),
        brand: cardBrand(submission.card.number),
      };
      const authUrl = outcome.token.threeDS?.authURL;
      if (!authUrl) return this.attach(session, attempt);
      if (!this.acceptableRedirect(authUrl)) {
        return this.fail(session, new DomainError('upstream_error', 'The card issuer asked for authentication at an address the service does not trust.'));
      }
      const waiting: CheckoutSession = {
        ...session,
        status: 'requires_action',
        nextAction: { type: 'redirect', redirectUrl: authUrl },
        pendingAttempt: attempt,
        lastError: undefined,
      };
      await this.sessions.save(waiting);
      return toView(waiting);
    });
  }

  /** A token the site made with the upstream's own form: attached the same way, card data never seen. */
  submitToken(sessionId: string, tokenId: string): Promise<CheckoutSessionView> {
    return this.sessions.withLock(sessionId, async () => {
      const session = await this.submittable(sessionId);
      const attempt: PendingAttempt = { id: 'token', tokenId, paymentProviderId: session.paymentProviderId, last4: '' };
      return this.attach(session, attempt);
    });
  }

  /**
   * A 3-D Secure return. The state is consumed before anything else, so a replay, a forged state
   * or a second replica receiving the same return changes nothing. Answers the status to report.
   */
  async completeThreeDs(sessionId: string, outcome: ThreeDsOutcome, stateValue: string | undefined): Promise<'succeeded' | 'failed'> {
    const result = await this.applyThreeDs(sessionId, outcome, stateValue);
    this.metrics.threeDsReturns.inc({ outcome: result.counted });
    return result.status;
  }

  private async applyThreeDs(sessionId: string, outcome: ThreeDsOutcome, stateValue: string | undefined): Promise<{ status: 'succeeded' | 'failed'; counted: string }> {
    const state = await this.states.consume(stateValue).catch(() => null);
    const refused = async () => {
      const session = await this.sessions.load(sessionId).catch(() => null);
      return { status: session?.status === 'succeeded' ? ('succeeded' as const) : ('failed' as const), counted: 'refused' };
    };
    if (!state || state.sessionId !== sessionId) return refused();
    return this.sessions.withLock(sessionId, async () => {
      const session = await this.sessions.load(sessionId);
      const attempt = session?.pendingAttempt;
      if (!session || session.status !== 'requires_action' || !attempt || attempt.id !== state.attemptId) return refused();
      if (outcome === 'failure') {
        await this.fail(session, new DomainError('card_declined', 'The card issuer did not confirm the payment. Please try again or use another card.'), 'authentication_failed').catch(() => undefined);
        return { status: 'failed' as const, counted: 'failed' };
      }
      const view = await this.attach(session, attempt).catch(() => null);
      const status = view?.status === 'succeeded' ? ('succeeded' as const) : ('failed' as const);
      return { status, counted: status };
    });
  }

  private async attach(session: CheckoutSession, attempt: PendingAttempt): Promise<CheckoutSessionView> {
    let method: UpstreamPaymentMethod;
    try {
      method = await this.guesty.attachPaymentMethod({
        guestId: session.guestId,
        tokenId: attempt.tokenId,
        paymentProviderId: attempt.paymentProviderId,
        reservationId: session.reservationId,
      });
    } catch (error) {
      if (error instanceof UpstreamError && error.upstreamStatus !== undefined && error.upstreamStatus < 500) {
        // Answered, so nothing was attached. Only a refusal of the card itself is the guest's to fix;
        // a busy platform (429 past the deadline) or a refused service keeps its own code and status.
        if (error.code !== 'upstream_error') return this.fail(session, error);
        return this.fail(session, new DomainError('card_declined', 'The card could not be attached to the reservation. Please use another card.', { cause: error }));
      }
      // No answer, or a 5xx: the attach may have landed all the same. A retry would attach a second
      // payment method, so look at the reservation before saying it failed.
      const landed = error instanceof UpstreamError && error.maybeSent ? await this.findAttached(session, attempt) : null;
      if (landed) return this.attached(session, attempt, landed);
      if (error instanceof DomainError) {
        // Not seen on the reservation (or it could not be read): the session says so instead of guessing.
        return this.fail(session, new DomainError(error.code, 'We could not confirm the payment method with the booking platform. Please check again shortly before retrying.', { status: error.status, retryAfterSeconds: error.retryAfterSeconds, cause: error }));
      }
      throw error;
    }
    return this.attached(session, attempt, method);
  }

  private async attached(session: CheckoutSession, attempt: PendingAttempt, method: UpstreamPaymentMethod): Promise<CheckoutSessionView> {
    const last4 = attempt.last4 || method.card?.last4 || '';
    const brand = attempt.brand ?? method.card?.brand;
    const succeeded: CheckoutSession = {
      ...session,
      status: 'succeeded',
      paymentMethod: { id: method._id, last4, ...(brand ? { brand } : {}) },
      tokenizedUnder: attempt.paymentProviderId,
      nextAction: undefined,
      pendingAttempt: undefined,
      lastError: undefined,
    };
    await this.sessions.save(succeeded);
    this.logger.log({ sessionId: session.id, reservationId: session.reservationId, paymentMethodId: method._id }, 'payment method attached');
    return toView(succeeded);
  }

  /**
   * After an attach without a clear answer: the reservation's payment method for this card (same
   * provider and last four digits), re-read a few times because the upstream shows a write after a
   * moment; null when it does not show, or for a token from the upstream's form (nothing to recognise).
   */
  private async findAttached(session: CheckoutSession, attempt: PendingAttempt): Promise<UpstreamPaymentMethod | null> {
    if (!attempt.last4) return null;
    for (const delay of ATTACH_RECHECK_DELAYS_MS) {
      await sleep(delay);
      const methods = await this.guesty.listPaymentMethods(session.guestId, session.reservationId).catch(() => null);
      const landed = methods?.filter((method) => method.paymentProviderId === attempt.paymentProviderId && method.card?.last4 === attempt.last4).pop();
      if (landed) {
        this.logger.warn({ sessionId: session.id, reservationId: session.reservationId, paymentMethodId: landed._id }, 'an attach failed without an answer but landed');
        return landed;
      }
    }
    return null;
  }

  /** Records the failure on the session (a new card may follow), then answers it. */
  private async fail(session: CheckoutSession, error: DomainError, code: string = error.code): Promise<never> {
    const failed: CheckoutSession = {
      ...session,
      status: 'failed',
      lastError: { code, message: error.detail },
      nextAction: undefined,
      pendingAttempt: undefined,
    };
    await this.sessions.save(failed);
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
