import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import { KeyValueStore } from './key-value-store';

const READINESS_TIMEOUT_MS = 1_000;

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
      await Promise.race([
        this.store.ping(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${READINESS_TIMEOUT_MS} ms`)), READINESS_TIMEOUT_MS);
        }),
      ]);
      return indicator.up({ store: this.store.kind });
    } catch (error) {
      return indicator.down({ store: this.store.kind, message: error instanceof Error ? error.message : 'unreachable' });
    } finally {
      clearTimeout(timer);
    }
  }
}
