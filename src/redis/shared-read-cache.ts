import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '../primitives/clock';
import { MetricsService } from '../metrics/metrics.service';
import { CounterTally } from '../metrics/tallies';
import { KeyValueStore } from './key-value-store';
import { RedisKeys } from './redis-keys';
import { SharedFetches } from './shared-fetches';
import { setBounded } from '../primitives/bounded-map';

export interface CachePolicy {
  /** How long Redis keeps a loaded value for every replica. */
  ttlMs: number;
  /**
   * How long this replica may answer from its own copy without asking Redis. Only for values that
   * may be that much staler than Redis (a public listing summary): it spares the hottest reads a
   * Redis round trip.
   */
  localTtlMs?: number;
  /**
   * How long a miss (the loader found nothing) is remembered, by Redis and locally: a crawl of
   * unknown ids then costs one upstream read per id and period, not one per request. Absent: not kept.
   */
  missTtlMs?: number;
}

/** Local copies kept at most, oldest dropped first, so a crawl of listing ids cannot grow the heap. */
const LOCAL_ENTRIES = 1000;

/**
 * Upstream reads many requests share (a listing's provider, its public summary), cached in Redis
 * for every replica and loaded once per miss across them (SharedFetches). A Redis failure is a
 * miss: the read goes upstream rather than failing. With `missTtlMs`, "not found" is cached too, as
 * JSON null.
 */
@Injectable()
export class SharedReadCache {
  private readonly loading = new Map<string, Promise<unknown>>();
  private readonly local = new Map<string, { value: unknown; until: number }>();
  /** Each cache's hit count, resolved once: every read the cache answers counts one. */
  private readonly hits = new Map<string, CounterTally>();

  constructor(
    @Inject(KeyValueStore) private readonly store: KeyValueStore,
    private readonly keys: RedisKeys,
    private readonly metrics: MetricsService,
    private readonly clock: Clock,
    private readonly fetches: SharedFetches,
  ) {}

  /** getOrLoad's answer from this replica's own copy while it is fresh, without a promise (a hit); undefined otherwise. */
  heldHere<T>(cache: string, id: string): { value: T | null } | undefined {
    const copy = this.local.get(this.keys.cache(cache, id));
    if (!copy || copy.until <= this.clock.now()) return undefined;
    this.hit(cache);
    return copy as { value: T | null };
  }

  async getOrLoad<T>(cache: string, id: string, policy: CachePolicy, load: () => Promise<T | null>): Promise<T | null> {
    const held = this.heldHere<T>(cache, id);
    if (held) return held.value;
    const key = this.keys.cache(cache, id);
    const cached = await this.store.get(key).catch(() => null);
    if (cached !== null) {
      this.hit(cache);
      const value = JSON.parse(cached) as T | null;
      this.keepLocally(key, value, value !== null ? policy : { ...policy, ttlMs: policy.missTtlMs ?? 0 });
      return value;
    }
    this.metrics.cacheLookups.inc({ cache, result: 'miss' });
    let pending = this.loading.get(key) as Promise<T | null> | undefined;
    if (!pending) {
      pending = this.fetches
        .once<string>({
          lockKey: this.keys.fetchLock(cache, id),
          kind: 'read',
          published: async () => (await this.store.get(key).catch(() => null)) ?? undefined,
          fetch: async () => {
            const value = await load();
            const ttlMs = value !== null ? policy.ttlMs : policy.missTtlMs;
            const text = JSON.stringify(value);
            if (ttlMs !== undefined) await this.store.set(key, text, { ttlMs }).catch(() => false);
            return text;
          },
        })
        .then((text) => {
          const value = JSON.parse(text) as T | null;
          const ttlMs = value !== null ? policy.ttlMs : policy.missTtlMs;
          if (ttlMs !== undefined) this.keepLocally(key, value, { ...policy, ttlMs });
          return value;
        })
        .finally(() => this.loading.delete(key));
      this.loading.set(key, pending);
    }
    return pending;
  }

  /**
   * Changes a value every replica reads in place, keeping its expiry (this service's own change to what
   * it cached, e.g. nights it booked). Absent: nothing to change. Other replicas' own copies live
   * localTtlMs at most. If Redis fails midway the value is dropped instead, so no stale copy stays.
   */
  async update<T>(cache: string, id: string, change: (value: T) => T): Promise<void> {
    const key = this.keys.cache(cache, id);
    this.local.delete(key);
    try {
      const [text, ttlMs] = await this.store.batch([
        { op: 'get', key },
        { op: 'ttl', key },
      ]);
      const value = typeof text === 'string' ? (JSON.parse(text) as T | null) : null;
      if (value === null || typeof ttlMs !== 'number' || ttlMs <= 0) return;
      await this.store.set(key, JSON.stringify(change(value)), { ttlMs });
    } catch {
      await this.forget(cache, id);
    }
  }

  /** Drops a value everywhere this replica can: Redis and its own copy (other replicas' copies live localTtlMs at most). */
  async forget(cache: string, id: string): Promise<void> {
    const key = this.keys.cache(cache, id);
    this.local.delete(key);
    await this.store.delete(key).catch(() => undefined);
  }

  private hit(cache: string): void {
    let tally = this.hits.get(cache);
    if (tally === undefined) this.hits.set(cache, (tally = this.metrics.cacheLookups.tally({ cache, result: 'hit' })));
    tally.inc();
  }

  private keepLocally(key: string, value: unknown, policy: CachePolicy): void {
    if (!policy.localTtlMs) return;
    setBounded(this.local, key, { value, until: this.clock.now() + Math.min(policy.localTtlMs, policy.ttlMs) }, LOCAL_ENTRIES);
  }
}
