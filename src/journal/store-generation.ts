import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { randomUUID } from 'node:crypto';
import { Clock } from '../primitives/clock';
import { DomainError } from '../common/errors/domain-error';
import { AppConfig } from '../config/app-config';
import { MetricsService } from '../metrics/metrics.service';
import { BatchStep, KeyValueStore } from '../redis/key-value-store';
import { RedisKeys } from '../redis/redis-keys';

/**
 * The journal's generation: which store life this is, the first moment writes may be sent in it, and
 * when a replica first found the store without it (absent in generations written before it was kept).
 */
interface Generation {
  id: string;
  writesFrom: number;
  foundAt?: number;
}

function readGeneration(raw: string): Generation | null {
  try {
    const parsed = JSON.parse(raw) as Partial<Generation>;
    if (typeof parsed.id !== 'string' || typeof parsed.writesFrom !== 'number') return null;
    return { id: parsed.id, writesFrom: parsed.writesFrom, ...(typeof parsed.foundAt === 'number' ? { foundAt: parsed.foundAt } : {}) };
  } catch {
    return null;
  }
}

/**
 * Knows whether Redis still holds the journal this replica wrote to (docs/write-journal.md, "When
 * Redis loses data"). A Redis back empty has lost every intent and lease while an earlier write may
 * still land, so a store with no or another generation takes no write until the settle horizon has
 * passed; then the platform's record, read in each write's snapshot, decides.
 */
@Injectable()
export class StoreGeneration implements OnModuleInit {
  private readonly logger = new Logger('StoreGeneration');
  private readonly key: string;
  private readonly settleMs: number;
  private readonly holdOnNewStore: boolean;
  /** The generation as this replica last saw it in the store: its text (to compare with what a step reads) and its reading. */
  private known: { raw: string; generation: Generation } | null = null;

  constructor(
    @Inject(KeyValueStore) private readonly store: KeyValueStore,
    keys: RedisKeys,
    private readonly clock: Clock,
    private readonly metrics: MetricsService,
    config: ConfigService<AppConfig, true>,
  ) {
    this.key = keys.journal().generation;
    const writes = config.get('reservationWrites', { infer: true });
    this.settleMs = writes.settleMs;
    this.holdOnNewStore = writes.holdOnNewStore;
  }

  /** Learns the generation at start; a store that does not answer yet is judged at the first write. */
  async onModuleInit(): Promise<void> {
    try {
      await this.judge(await this.store.get(this.key));
    } catch {
      // Redis unreachable or writes held: the first write's step reads it again.
    }
  }

  /** A step for a write's prepare batch: the generation as the store holds it in that very step. */
  step(): BatchStep {
    return { op: 'get', key: this.key, otherSlot: true };
  }

  /**
   * Judges what `step` read: nothing when it is the generation this replica knows and writes are
   * open; otherwise learns the store's generation (starting one after a loss) and throws
   * `step_in_progress` with the seconds left while writes wait for the horizon. Nothing was sent.
   */
  async admit(found: unknown): Promise<void> {
    const raw = typeof found === 'string' ? found : null;
    const generation = raw !== null && raw === this.known?.raw ? this.known.generation : await this.judge(raw);
    const waitMs = (generation?.writesFrom ?? 0) - this.clock.now();
    if (waitMs > 0) {
      throw new DomainError(
        'step_in_progress',
        'The service is making sure no earlier payment step is still landing before it sends another; nothing was sent. Try again in a moment.',
        { retryAfterSeconds: Math.ceil(waitMs / 1000) },
      );
    }
  }

  private async judge(raw: string | null): Promise<Generation | null> {
    const knew = this.known?.generation ?? null;
    let text = raw;
    let current = text === null ? null : readGeneration(text);
    const lostWhileRunning = knew !== null && current?.id !== knew.id;
    let created = false;
    if (current === null) {
      const writesFrom = lostWhileRunning || this.holdOnNewStore ? this.clock.now() + this.settleMs : 0;
      const fresh = JSON.stringify({ id: randomUUID(), writesFrom, foundAt: this.clock.now() });
      // One generation for every replica: the first to write it wins, the others read it.
      created = await this.store.set(this.key, fresh, { ifAbsent: true });
      text = created ? fresh : await this.store.get(this.key);
      current = text === null ? null : readGeneration(text);
      if (text === null || current === null) return null;
    }
    // Every write this replica sent before the loss left before the loss was first found, so one
    // horizon from then covers them all: a replica finding it later (days, for one that wrote
    // nothing since) never moves it. Only a generation opened at once as a new store's is raised.
    const horizon = (current.foundAt ?? this.clock.now()) + this.settleMs;
    if (lostWhileRunning && current.writesFrom < horizon) {
      current = { ...current, writesFrom: horizon };
      text = JSON.stringify(current);
      await this.store.set(this.key, text);
    }
    const held = current.writesFrom > this.clock.now();
    if ((lostWhileRunning && (created || held)) || (knew === null && held)) {
      this.metrics.storeLosses.inc();
      this.logger.error(
        { waitMs: Math.max(0, current.writesFrom - this.clock.now()) },
        lostWhileRunning
          ? 'Redis lost the write journal (it came back empty): no upstream write is sent until every earlier one has settled'
          : 'Redis holds no write journal yet (a new store, or one that lost its data): no upstream write is sent until every earlier one has settled',
      );
    }
    if (text !== null) this.known = { raw: text, generation: current };
    return current;
  }
}
