import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { randomInt, randomUUID } from 'node:crypto';
import { Clock } from '../primitives/clock';
import { KeyValueStore } from '../redis/key-value-store';
import { RedisKeys } from '../redis/redis-keys';
import { FollowUps } from './follow-ups';
import { ReservationLeases } from './reservation-leases';
import { isOpen } from './write-intent';
import { fromDueMember, WriteJournal } from './write-journal';

const SWEEP_EVERY_MS = 5_000;
const SWEEP_LOCK_MS = 60_000;
const BATCH = 20;

/**
 * Finishes what a dead replica, or a request that ended before the platform answered, left open
 * (docs/product-spec.md §6.6): one replica at a time reconciles the due intents under each
 * reservation's lease, then runs the due follow-ups. An intent whose writer is still at work is
 * skipped, since the writer holds the lease.
 */
@Injectable()
export class JournalSweep implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('JournalSweep');
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;

  constructor(
    @Inject(KeyValueStore) private readonly store: KeyValueStore,
    private readonly keys: RedisKeys,
    private readonly journal: WriteJournal,
    private readonly leases: ReservationLeases,
    private readonly clock: Clock,
    private readonly followUps: FollowUps,
  ) {}

  onApplicationBootstrap(): void {
    const tick = () => {
      this.timer = setTimeout(
        () => {
          void this.sweepOnce().finally(tick);
        },
        SWEEP_EVERY_MS + randomInt(1_000),
      );
      this.timer.unref();
    };
    tick();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }

  /** One pass; answers how many intents it settled. Never throws: the next pass tries again. */
  sweepOnce(): Promise<number> {
    this.running ??= this.pass().finally(() => (this.running = undefined));
    return this.running;
  }

  private async pass(): Promise<number> {
    // Every replica, lock or not: the follow-ups it recorded itself, which a Redis that lost data may no longer hold.
    let settled = await this.followUps.runRemembered().catch(() => 0);
    const journal = this.keys.journal();
    const owner = randomUUID();
    const claimed = await this.store.set(journal.sweepLock, owner, { ifAbsent: true, ttlMs: SWEEP_LOCK_MS }).catch(() => false);
    if (!claimed) return settled;
    try {
      const due = await this.store.indexDue(journal.due, this.clock.now(), BATCH);
      for (const member of due) {
        const named = fromDueMember(member);
        if (!named) {
          await this.store.indexRemove(journal.due, member).catch(() => undefined);
          continue;
        }
        const state = await this.leases
          .withLease(named.target, () => this.journal.reconcileDue(named.target, named.intentId), { waitMs: 0 })
          .catch((error: unknown) => {
            this.logger.debug(
              { err: error, intentId: named.intentId },
              'an open intent was not swept this time (its reservation or quote is busy, or Redis failed)',
            );
            return null;
          });
        if (state && !isOpen(state)) settled += 1;
      }
      // Then what must follow a landed write and was not done by its request (its replica died, the platform dropped it).
      settled += await this.followUps.runDue(BATCH);
    } catch (error) {
      this.logger.warn({ err: error }, 'the journal sweep could not read the due intents; it tries again shortly');
    } finally {
      await this.store.deleteIfEquals(journal.sweepLock, owner).catch(() => undefined);
    }
    return settled;
  }
}
