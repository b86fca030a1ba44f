import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import { KeyValueStore } from './key-value-store';

const READINESS_TIMEOUT_MS = 1_000;

/**
 * Why the service cannot run on a store with this memory policy, or null: an evicted intent, lease or
 * card on file is forgotten without a word, and a second card can follow (docs/write-journal.md).
 */
export function evictionRefusal(policy: string): string | null {
  if (policy === 'noeviction') return null;
  return `Redis may evict the service's keys (maxmemory-policy ${policy}): an evicted write journal can take a second card. Set maxmemory-policy noeviction (docs/deploying.md).`;
}

@Injectable()
export class RedisHealthIndicator {
  constructor(
    @Inject(KeyValueStore) private readonly store: KeyValueStore,
    private readonly health: HealthIndicatorService,
  ) {}

  async isReachable(key = 'redis'): Promise<HealthIndicatorResult> {
    const indicator = this.health.check(key);
    let timer: NodeJS.Timeout | undefined;
    try {
      const policy = await Promise.race([
        this.store.ping().then(() => this.store.evictionPolicy()),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${READINESS_TIMEOUT_MS} ms`)), READINESS_TIMEOUT_MS);
        }),
      ]);
      const refusal = evictionRefusal(policy);
      if (refusal) return indicator.down({ store: this.store.kind, message: refusal });
      return indicator.up({ store: this.store.kind });
    } catch (error) {
      return indicator.down({ store: this.store.kind, message: error instanceof Error ? error.message : 'unreachable' });
    } finally {
      clearTimeout(timer);
    }
  }
}
