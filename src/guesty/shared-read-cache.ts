import { Inject, Injectable } from '@nestjs/common';
import { KeyValueStore } from '../redis/key-value-store';
import { RedisKeys } from '../redis/redis-keys';
import { UpstreamMetrics } from './upstream-metrics';

/**
 * Upstream reads that many requests share (a listing's provider, its public summary), cached in
 * Redis for every replica. Concurrent misses in one replica share one load. A Redis failure is a
 * miss: the read goes upstream rather than failing.
 */
@Injectable()
export class SharedReadCache {
  private readonly loading = new Map<string, Promise<unknown>>();

  constructor(
    @Inject(KeyValueStore) private readonly store: KeyValueStore,
    private readonly keys: RedisKeys,
    private readonly metrics: UpstreamMetrics,
  ) {}

  async getOrLoad<T>(cache: string, id: string, ttlMs: number, load: () => Promise<T | null>): Promise<T | null> {
    const key = this.keys.cache(cache, id);
    const cached = await this.store.get(key).catch(() => null);
    if (cached !== null) {
      this.metrics.cacheLookups.inc({ cache, result: 'hit' });
      return JSON.parse(cached) as T;
    }
    this.metrics.cacheLookups.inc({ cache, result: 'miss' });
    let pending = this.loading.get(key) as Promise<T | null> | undefined;
    if (!pending) {
      pending = (async () => {
        const value = await load();
        if (value !== null) await this.store.set(key, JSON.stringify(value), { ttlMs }).catch(() => false);
        return value;
      })().finally(() => this.loading.delete(key));
      this.loading.set(key, pending);
    }
    return pending;
  }
}
