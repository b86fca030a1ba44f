import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { randomInt, randomUUID } from 'node:crypto';
import { Clock } from '../common/clock';
import { DomainError } from '../common/errors/domain-error';
import { AppConfig } from '../config/app-config';
import { KeyValueStore } from '../redis/key-value-store';
import { RedisKeys, TargetWrites } from '../redis/redis-keys';
import { WriteTarget } from './write-intent';

/** The writer's hold on one target (a reservation, or a quote before its reservation exists) while it works. */
export interface ReservationLease {
  readonly target: WriteTarget;
  /** The value this writer holds the lease key with: the journal's fence step checks it is still there. */
  readonly owner: string;
  /** False once a renewal found the lease gone or could not reach Redis for a whole lease: send nothing more. */
  held(): boolean;
}

/**
 * By default a second writer is answered at once (409 with Retry-After), as a guest pressing Pay
 * twice should be: waiting would only queue requests behind a slow write (and, with Redis hung,
 * stack one timeout on another). Callers that must follow a write (a 3-D Secure return, a
 * confirmation after an attach) pass their own wait.
 */
const DEFAULT_WAIT_MS = 0;

function busy(): DomainError {
  return new DomainError('invalid_state', 'Another payment step for this reservation is still running; try again in a moment.', {
    retryAfterSeconds: 1,
  });
}

/**
 * One writer per reservation (or per quote while its reservation is made) across replicas (docs/product-spec.md §6.3): a lease in Redis, renewed every third of
 * its length while the work runs, so it outlives the slowest call without a fixed guess; a replica
 * that dies stops renewing and the lease lapses within RESERVATION_LEASE_MS. (The journal spaces the
 * writes by RESERVATION_WRITE_SPACING_MS: back-to-back writes to one reservation race upstream.)
 */
@Injectable()
export class ReservationLeases {
  private readonly leaseMs: number;
  /** RESERVATION_WRITE_SPACING_MS: the journal keeps it between two writes to one reservation. */
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

  /** Runs `work` holding the target's lease; waits up to `waitMs` (default: not at all) for another holder, then 409. */
  async withLease<T>(target: WriteTarget, work: (lease: ReservationLease) => Promise<T>, options: { waitMs?: number } = {}): Promise<T> {
    const key = this.writesOf(target).lease;
    const owner = randomUUID();
    const giveUpAt = this.clock.now() + (options.waitMs ?? DEFAULT_WAIT_MS);
    while (!(await this.storeCall(() => this.store.set(key, owner, { ifAbsent: true, ttlMs: this.leaseMs })))) {
      if (this.clock.now() >= giveUpAt) throw busy();
      await this.clock.sleep(50 + randomInt(100));
    }
    let renewedAt = this.clock.now();
    let lost = false;
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
    const lease: ReservationLease = { target, owner, held: () => !lost && this.clock.now() - renewedAt < this.leaseMs };
    try {
      return await work(lease);
    } finally {
      clearInterval(renewal);
      await this.store.deleteIfEquals(key, owner).catch(() => undefined);
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
