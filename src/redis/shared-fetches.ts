import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { Clock } from '../primitives/clock';
import { AppConfig } from '../config/app-config';
import { KeyValueStore } from './key-value-store';

/** First look for the fetcher's answer this soon (a cached upstream read takes tens of ms), then back off. */
const FIRST_LOOK_MS = 10;
const LONGEST_LOOK_MS = 100;
/** The fetcher's lock outlives the upstream deadline by this much (token and Redis steps around the call). */
const LOCK_MARGIN_MS = 1_000;

export interface SharedFetch<T> {
  /** The lock of this key's fetch (RedisKeys.fetchLock). */
  lockKey: string;
  /** A write (a quote) has half as long again as a read upstream; its fetch lock lives as long. */
  kind: 'read' | 'write';
  /** What a fetcher published for every replica; undefined while nothing is. */
  published(): Promise<T | undefined>;
  /** Goes upstream and publishes what it found (so `published` answers it), then answers it. */
  fetch(): Promise<T>;
}

/**
 * One upstream fetch per key across replicas: the one holding a short Redis lock fetches and
 * publishes; the others poll for its answer (10 ms, backing off to 100 ms). The lock outlives the
 * upstream deadline only by a margin, so a dead fetcher stalls the others that long at most. While
 * Redis fails, each replica fetches alone.
 */
@Injectable()
export class SharedFetches {
  private readonly lockTtlMs: Record<'read' | 'write', number>;

  constructor(
    @Inject(KeyValueStore) private readonly store: KeyValueStore,
    private readonly clock: Clock,
    config: ConfigService<AppConfig, true>,
  ) {
    const { callDeadlineMs } = config.get('guesty', { infer: true });
    this.lockTtlMs = { read: callDeadlineMs + LOCK_MARGIN_MS, write: callDeadlineMs * 1.5 + LOCK_MARGIN_MS };
  }

  /** The caller has just looked (`published` answered undefined): fetch under the lock, or wait for whoever holds it. */
  async once<T>(shared: SharedFetch<T>): Promise<T> {
    const ttlMs = this.lockTtlMs[shared.kind];
    const giveUpAt = Date.now() + ttlMs;
    for (let look = FIRST_LOOK_MS; ; look = Math.min(look * 2, LONGEST_LOOK_MS)) {
      const token = randomUUID();
      const held = await this.store.set(shared.lockKey, token, { ifAbsent: true, ttlMs }).catch(() => undefined);
      if (held !== false) return this.fetchHolding(shared, held ? token : undefined);
      // Waited as long as a live fetcher can take: whoever holds the lock is not answering.
      if (Date.now() >= giveUpAt) return shared.fetch();
      await this.clock.sleep(Math.min(look, giveUpAt - Date.now()));
      const seen = await shared.published();
      if (seen !== undefined) return seen;
    }
  }

  private async fetchHolding<T>(shared: SharedFetch<T>, token: string | undefined): Promise<T> {
    try {
      // A fetcher may have published and let go between the caller's look and this lock.
      const seen = token ? await shared.published() : undefined;
      return seen !== undefined ? seen : await shared.fetch();
    } finally {
      if (token) await this.store.deleteIfEquals(shared.lockKey, token).catch(() => false);
    }
  }
}
