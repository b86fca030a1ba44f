import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { randomInt, randomUUID } from 'node:crypto';
import { Clock } from '../primitives/clock';
import { DomainError } from '../common/errors/domain-error';
import { AppConfig } from '../config/app-config';
import { BatchAnswer, BatchStep, KeyValueStore } from '../redis/key-value-store';
import { RedisKeys, TargetWrites } from '../redis/redis-keys';
import { WriteTarget } from './write-intent';

/** The writer's hold on one target (a reservation, or a quote before its reservation exists) while it works. */
export interface ReservationLease {
  readonly target: WriteTarget;
  /** The value this writer holds the lease key with: the journal's fence step checks it is still there. */
  readonly owner: string;
  /** False once a renewal found the lease gone or could not reach Redis for a whole lease: send nothing more. */
  held(): boolean;
  /**
   * Present when the work ends with one journaled write (withLease's `endsWithWrite`): the step
   * that records that write's landed outcome releases the lease too, then tells it here.
   */
  readonly endsWithWrite?: { released(): void };
  /** Background work (LeaseOptions.spaced): its writes keep RESERVATION_WRITE_SPACING_MS from the last one. */
  readonly spaced?: true;
}

export interface LeaseOptions {
  /** How long to wait for another holder (default: not at all), then 409. */
  waitMs?: number;
  /**
   * Steps run in the step that takes the lease, right after it (only when it was taken): the work
   * gets their answers, in order. Keys of the target's hash tag, or steps marked `otherSlot`.
   */
  alongside?: readonly BatchStep[];
  /**
   * The work's last step under the lease is one journaled write: once its landed outcome is
   * recorded (in the same step, which releases the lease), what the work still does needs no lease.
   */
  endsWithWrite?: boolean;
  /**
   * Background work (a booking's confirmation, a cancel): its writes keep RESERVATION_WRITE_SPACING_MS
   * after the last write to the target, waited out before the lease is taken, so no guest's press
   * waits behind it. A guest's own writes are never spaced.
   */
  spaced?: boolean;
}

/**
 * By default a second writer is answered at once (409 with Retry-After), as a guest pressing Pay
 * twice should be: waiting would only queue requests behind a slow write (and, with Redis hung,
 * stack one timeout on another). Callers that must follow a write (a 3-D Secure return, a
 * confirmation after an attach) pass their own wait.
 */
const DEFAULT_WAIT_MS = 0;

function busy(): DomainError {
  return new DomainError('step_in_progress', 'Another payment step for this reservation is still running; try again in a moment.', {
    retryAfterSeconds: 1,
  });
}

/**
 * One writer per reservation, or per quote while its reservation is made
 * (docs/product-spec.md §6.3): a Redis lease renewed every third of its length while the work runs,
 * so it outlives the slowest call without a fixed guess, and lapses within RESERVATION_LEASE_MS
 * once its replica dies.
 */
@Injectable()
export class ReservationLeases {
  private readonly leaseMs: number;
  /** RESERVATION_WRITE_SPACING_MS: the journal keeps it before a background write to one reservation. */
  readonly spacingMs: number;

  constructor(
    @Inject(KeyValueStore) private readonly store: KeyValueStore,
    private readonly keys: RedisKeys,
    private readonly clock: Clock,
    config: ConfigService<AppConfig, true>,
  ) {
    ({ leaseMs: this.leaseMs, spacingMs: this.spacingMs } = config.get('reservationWrites', { infer: true }));
  }

  /** The keys of a target's writes: its lease, its intents and what its kinds record beside them. */
  writesOf(target: WriteTarget): TargetWrites {
    return 'reservation' in target ? this.keys.reservationWrites(target.reservation) : this.keys.quoteWrites(target.quote);
  }

  /**
   * Runs `work` holding the target's lease; waits up to `waitMs` (default: not at all) for another
   * holder, then 409. The lease is taken in one step with the steps asked for (`alongside`).
   */
  async withLease<T>(
    target: WriteTarget,
    work: (lease: ReservationLease, answers: BatchAnswer[]) => Promise<T>,
    options: LeaseOptions = {},
  ): Promise<T> {
    const key = this.writesOf(target).lease;
    const owner = randomUUID();
    if (options.spaced) await this.waitOutSpacing(target);
    const giveUpAt = this.clock.now() + (options.waitMs ?? DEFAULT_WAIT_MS);
    let answers: BatchAnswer[] | null;
    while (!(answers = await this.storeCall(() => this.take(key, owner, options.alongside ?? [])))) {
      if (this.clock.now() >= giveUpAt) throw busy();
      await this.clock.sleep(50 + randomInt(100));
    }
    let renewedAt = this.clock.now();
    let lost = false;
    let released = false;
    const renewal = setInterval(
      () => {
        this.store.extendIfEquals(key, owner, this.leaseMs).then(
          (extended) => {
            if (extended) renewedAt = this.clock.now();
            else lost = true;
          },
          // Redis is down: the lease may still be ours when it answers again, unless a whole lease passed.
          () => undefined,
        );
      },
      Math.max(50, Math.floor(this.leaseMs / 3)),
    );
    renewal.unref();
    const endsWithWrite = options.endsWithWrite
      ? {
          released: () => {
            released = true;
            clearInterval(renewal);
          },
        }
      : undefined;
    const lease: ReservationLease = {
      target,
      owner,
      held: () => !released && !lost && this.clock.now() - renewedAt < this.leaseMs,
      ...(endsWithWrite ? { endsWithWrite } : {}),
      ...(options.spaced ? { spaced: true as const } : {}),
    };
    try {
      return await work(lease, answers);
    } finally {
      clearInterval(renewal);
      if (!released) await this.store.deleteIfEquals(key, owner).catch(() => undefined);
    }
  }

  /** Sleeps out what is left of the spacing after the target's last write (none: at once). */
  private async waitOutSpacing(target: WriteTarget): Promise<void> {
    if (this.spacingMs <= 0) return;
    const [left] = await this.storeCall(() => this.store.batch([{ op: 'ttl', key: this.writesOf(target).lastWrite }]));
    if (typeof left === 'number' && left > 0) await this.clock.sleep(left);
  }

  /** SET NX PX, with the steps asked for in the same step: null when another holds the lease. */
  private async take(key: string, owner: string, alongside: readonly BatchStep[]): Promise<BatchAnswer[] | null> {
    try {
      if (alongside.length === 0) return (await this.store.set(key, owner, { ifAbsent: true, ttlMs: this.leaseMs })) ? [] : null;
      const [taken, ...answers] = await this.store.batch([{ op: 'setIfAbsent', key, value: owner, ttlMs: this.leaseMs }, ...alongside]);
      return taken === true ? answers : null;
    } catch (error) {
      // The lease may be ours with no work to run under it (its answer lost, or on a Redis Cluster a
      // later step's slot failed): let it go rather than refuse every press until it lapses. Not
      // awaited: the caller answers now; `owner` is this call's alone.
      void this.store.deleteIfEquals(key, owner).catch(() => undefined);
      throw error;
    }
  }

  private async storeCall<R>(call: () => Promise<R>): Promise<R> {
    try {
      return await call();
    } catch (cause) {
      throw DomainError.storeUnavailable(cause);
    }
  }
}
