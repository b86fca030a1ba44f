import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { DomainError } from '../common/errors/domain-error';
import { OnProductEvent } from '../common/events/on-product-event';
import { ProductEvents } from '../common/events/product-events';
import { AppConfig } from '../config/app-config';
import { MetricsService } from '../metrics/metrics.service';
import { KeyValueStore, steps } from '../redis/key-value-store';
import { RedisKeys } from '../redis/redis-keys';
import { forGuest } from './guest-diagnosis';
import { KnownPaymentFacts, PaymentDiagnosis } from './payment-diagnosis';
import { PaymentDiagnosticsService } from './payment-diagnostics.service';
import { Priority } from '../upstream/guesty-client';
import { SessionCharges } from './session-charges';

/** Longer than one diagnosis may take (its reads and ~2.5 s of re-reads); a holder that died frees it then. */
const LOCK_TTL_MS = 20_000;
/** How often a replica waiting for another's read looks for its answer. */
const POLL_MS = 100;

/**
 * payment-status for the site (docs/product-spec.md §3.2): at most one upstream read of a reservation's payments per
 * PAYMENT_STATUS_REFRESH_SECONDS, shared by all replicas however many browsers poll. One replica
 * reads under a short lock and stores its answer; the others answer from it, or wait for it. The
 * answer is worded for the guest before it is stored.
 */
@Injectable()
export class PaymentStatusPolls {
  private readonly logger = new Logger('PaymentStatusPolls');
  private readonly refreshMs: number;
  /** Concurrent polls of one reservation on this replica share one look-up. */
  private readonly pending = new Map<string, Promise<PaymentDiagnosis>>();

  constructor(
    @Inject(KeyValueStore) private readonly store: KeyValueStore,
    private readonly keys: RedisKeys,
    private readonly diagnostics: PaymentDiagnosticsService,
    private readonly metrics: MetricsService,
    config: ConfigService<AppConfig, true>,
    private readonly sessionCharges: SessionCharges,
  ) {
    this.refreshMs = config.get('budget', { infer: true }).paymentStatusRefreshSeconds * 1000;
  }

  /**
   * A payments or folio webhook. A payments event is about money that moved: re-read behind. A folio
   * event comes for every reservation of the account, so it is treated as a reservation's.
   */
  @OnProductEvent('payments.changed', 'payment status')
  async onPaymentsChanged({ reservationId, type }: ProductEvents['payments.changed']): Promise<void> {
    await this.stale(reservationId, type, type.startsWith('payments.'));
  }

  /** The platform says a reservation changed (`reservation.*`: its status, a payment, a card, an item). */
  @OnProductEvent('reservation.changed', 'payment status')
  async onReservationChanged({ reservationId, type }: ProductEvents['reservation.changed']): Promise<void> {
    if (reservationId && type.startsWith('reservation.')) await this.stale(reservationId, type, false);
  }

  /**
   * The answer served is dropped before the webhook is answered, so the next read on any replica
   * re-reads. The re-read runs behind (coalesced with any poll, at background priority) when `reRead`
   * or when a session of ours follows the reservation's charges, so the session learns it too.
   */
  private async stale(reservationId: string, type: string, reRead: boolean): Promise<void> {
    await this.forget(reservationId);
    if (!reRead && !(await this.sessionCharges.followed(reservationId))) return;
    this.status(reservationId, {}, 'background').catch((error: unknown) =>
      this.logger.warn({ err: error, type }, 'payment refresh after a webhook failed'),
    );
  }

  /** An extra added after paying: the "paid" served before it would be untrue. */
  @OnProductEvent('balance.changed', 'payment status')
  async onBalanceChanged({ reservationId }: ProductEvents['balance.changed']): Promise<void> {
    await this.forget(reservationId);
  }

  /**
   * Drops the answer and the reading replica's lock: a read begun before what made it stale then
   * stores nothing, and the next read here does not join it. A card attach drops both itself, in the
   * journal's step that records it landed (PaymentMethodWrite.alongside).
   */
  async forget(reservationId: string): Promise<void> {
    const keys = this.keys.paymentStatus(reservationId);
    await this.store.batch([steps.remove(keys.answer), steps.remove(keys.lock)]);
    this.pending.delete(reservationId);
  }

  async status(reservationId: string, known: KnownPaymentFacts, priority: Priority = 'session'): Promise<PaymentDiagnosis> {
    const shared = this.pending.get(reservationId);
    if (shared) {
      this.metrics.paymentStatusChecks.inc({ source: 'coalesced' });
      return shared;
    }
    const looking = this.lookUp(reservationId, known, priority).finally(() => {
      if (this.pending.get(reservationId) === looking) this.pending.delete(reservationId);
    });
    this.pending.set(reservationId, looking);
    return looking;
  }

  private async lookUp(reservationId: string, known: KnownPaymentFacts, priority: Priority): Promise<PaymentDiagnosis> {
    const keys = this.keys.paymentStatus(reservationId);
    const deadline = Date.now() + LOCK_TTL_MS;
    for (let waited = false; ; waited = true) {
      const cached = await this.store.get(keys.answer);
      if (cached !== null) {
        this.metrics.paymentStatusChecks.inc({ source: waited ? 'coalesced' : 'cached' });
        return JSON.parse(cached) as PaymentDiagnosis;
      }
      const lock = randomUUID();
      if (await this.store.set(keys.lock, lock, { ifAbsent: true, ttlMs: LOCK_TTL_MS })) {
        try {
          return await this.read(reservationId, known, { ...keys, held: lock }, priority);
        } finally {
          await this.store.deleteIfEquals(keys.lock, lock).catch(() => false);
        }
      }
      // Another replica is reading: its answer will be in Redis as soon as it has one.
      if (Date.now() + POLL_MS >= deadline) {
        throw new DomainError('upstream_unavailable', 'The payment status is being checked; try again shortly.', { retryAfterSeconds: 1 });
      }
      await sleep(POLL_MS);
    }
  }

  /** Stored only while this read still holds the lock: a webhook meanwhile (forget) makes it stale. */
  private async read(
    reservationId: string,
    known: KnownPaymentFacts,
    keys: { answer: string; lock: string; held: string },
    priority: Priority,
  ): Promise<PaymentDiagnosis> {
    const answer = forGuest(await this.diagnostics.forReservation(reservationId, known, priority), known.last4);
    this.metrics.paymentStatusChecks.inc({ source: 'upstream' });
    await this.store.batch(steps.writeWhileHeld(keys.lock, keys.held, keys.answer, JSON.stringify(answer), this.refreshMs)).catch(() => []);
    await this.sessionCharges.follow(reservationId, answer);
    return answer;
  }
}
