import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../primitives/clock';
import { DomainError } from '../common/errors/domain-error';
import { GuestyClient, Priority } from '../upstream/guesty-client';
import { PaymentMethodOnFile, PlatformReservation } from '../upstream/platform-results';
import { MetricsService } from '../metrics/metrics.service';
import { PaymentProviders } from '../upstream/payment-providers';
import { KnownPaymentFacts, PaymentDiagnosis } from './payment-diagnosis';
import { ConfigService } from '@nestjs/config';
import { AppConfig } from '../config/app-config';
import { acceptableAuthenticationUrl } from './authentication-url';
import {
  Money,
  Verdict,
  amountsOf,
  attachedVerdict,
  balanceDueVerdict,
  currentMethod,
  latestFailedPayment,
  notAttachedVerdict,
  paidVerdict,
  paymentsOf,
  processorErrorVerdict,
  providerMismatchVerdict,
  safePayments,
  scheduleVerdict,
} from './payment-verdicts';

const RESERVATION_ID = /^[A-Za-z0-9_-]{1,64}$/;
// A new payment shows in money.payments only after a moment: 3 re-reads, 2.5 s of waiting in all.
const RE_READ_DELAYS_MS = [250, 750, 1_500];

/**
 * Why a reservation is (not) paid, from its money.payments (docs/product-spec.md §3, docs/upstream-seed.md §7): paid; a card
 * tokenized under another processor account than the listing's; a processor or issuer refusal;
 * a card attached whose payment is still to show; or no card at all.
 */
@Injectable()
export class PaymentDiagnosticsService {
  private readonly logger = new Logger('PaymentDiagnostics');

  private readonly acceptable: (url: string) => boolean;

  constructor(
    private readonly guesty: GuestyClient,
    private readonly providers: PaymentProviders,
    private readonly metrics: MetricsService,
    config: ConfigService<AppConfig, true>,
    private readonly clock: Clock,
  ) {
    // The guest is sent only to an issuer's web address (https in production), as for the 3-D Secure authURL.
    const production = config.get('runtime', { infer: true }).production;
    this.acceptable = (url) => acceptableAuthenticationUrl(url, production);
  }

  async forReservation(reservationId: string, known: KnownPaymentFacts = {}, priority: Priority = 'checkout'): Promise<PaymentDiagnosis> {
    const answer = await this.diagnose(reservationId, known, priority);
    this.metrics.paymentDiagnoses.inc({ code: answer.diagnosis.code });
    this.logger.log({ reservationId, state: answer.state, code: answer.diagnosis.code }, 'payment diagnosis');
    return answer;
  }

  private async diagnose(reservationId: string, known: KnownPaymentFacts, priority: Priority): Promise<PaymentDiagnosis> {
    const reservation = await this.read(reservationId, priority);
    if (!reservation) throw new DomainError('reservation_not_found', 'No reservation has this id.');
    let money: Money = reservation.money ?? {};
    const paid = paidVerdict(money);
    if (paid) return this.answer(paid, money, [], known);

    const methods = await this.guesty.listPaymentMethods(reservation.guestId, reservation.id, priority, reservation.confirmationCode);
    const method = currentMethod(methods, known);
    if (!method) {
      const failed = latestFailedPayment(money.payments ?? []);
      return this.answer(failed ? processorErrorVerdict(failed) : notAttachedVerdict(), money, methods, known);
    }
    const settled = this.cardVerdict(money, method.id);
    if (settled) return this.answer(settled, money, methods, known);

    const listingId = reservation.listingId ?? known.listingId;
    const listingProvider = await this.listingProvider(listingId, money);
    const tokenizedUnder = method.paymentProviderId;
    if (tokenizedUnder && listingProvider && tokenizedUnder !== listingProvider) {
      return this.answer(
        providerMismatchVerdict({ ...method, paymentProviderId: tokenizedUnder }, listingProvider, listingId),
        money,
        methods,
        known,
      );
    }
    for (const delay of RE_READ_DELAYS_MS) {
      await this.clock.sleep(delay);
      // A failed re-read ends the waiting: the answer is then what the earlier reads showed.
      const again = await this.read(reservationId, priority).catch(() => null);
      if (!again) break;
      money = again.money ?? {};
      const verdict = paidVerdict(money) ?? this.cardVerdict(money, method.id);
      if (verdict) return this.answer(verdict, money, methods, known);
    }
    return this.answer(attachedVerdict(method, listingProvider), money, methods, known);
  }

  /** What the card's payments say: scheduled, waiting, failed, or a balance nobody scheduled; undefined while it shows none. */
  private cardVerdict(money: Money, methodId: string): Verdict | undefined {
    const payments = paymentsOf(money.payments ?? [], methodId);
    // A hold is never a payment, but one waiting for the guest's bank, or refused by it, is the guest's to act on.
    const holdsToAct = paymentsOf(money.holds ?? [], methodId).filter((hold) => ['PENDING_AUTH', 'FAILED'].includes(hold.status));
    return scheduleVerdict([...payments, ...holdsToAct], this.acceptable) ?? balanceDueVerdict(payments, money);
  }

  private read(reservationId: string, priority: Priority): Promise<PlatformReservation | null> {
    // Malformed ids are unknown ones, answered without spending an upstream call.
    return RESERVATION_ID.test(reservationId) ? this.guesty.getReservation(reservationId, priority, ['money']) : Promise.resolve(null);
  }

  /** Read fresh: a stale provider cache is one way a mismatch happens. The reservation's own when none is active. */
  private async listingProvider(listingId: string, money: Money): Promise<string | undefined> {
    const provider = await this.providers.forListing(listingId, { fresh: true });
    return provider?.paymentProviderId ?? money.paymentProviderIds?.[0];
  }

  private answer(verdict: Verdict, money: Money, methods: PaymentMethodOnFile[], known: KnownPaymentFacts): PaymentDiagnosis {
    return {
      ...verdict,
      ...(money.currency ? { currency: money.currency } : {}),
      ...amountsOf(money),
      payments: safePayments(money.payments ?? [], methods, known),
    };
  }
}
