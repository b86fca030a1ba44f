import { Global, Inject, Logger, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { ConfigService } from '@nestjs/config';
import { AppConfig } from '../config/app-config';
import { MetricsService } from '../metrics/metrics.service';
import { AtRestCiphers } from './at-rest-cipher';
import { KeyValueStore } from './key-value-store';
import { MemoryKeyValueStore } from './memory-key-value-store';
import { RedisKeyValueStore } from './redis-key-value-store';
import { RedisKeys } from './redis-keys';
import { evictionRefusal, RedisHealthIndicator } from './redis.health';
import { SharedFetches } from './shared-fetches';
import { SharedReadCache } from './shared-read-cache';
import { StoreOutbox } from './store-outbox';

const CONNECT_WAIT_MS = 3_000;

@Global()
@Module({
  imports: [TerminusModule],
  providers: [
    {
      provide: KeyValueStore,
      inject: [ConfigService, MetricsService],
      useFactory: (config: ConfigService<AppConfig, true>, metrics: MetricsService): KeyValueStore => {
        const { url } = config.get('redis', { infer: true });
        if (url) return RedisKeyValueStore.connect(url, () => metrics.redisCommands.inc());
        new Logger('Redis').warn(
          'REDIS_URL is not set: using the in-process store. Sessions, tokens and limits are NOT shared — run ONE replica only.',
        );
        return new MemoryKeyValueStore();
      },
    },
    {
      provide: RedisKeys,
      inject: [ConfigService],
      useFactory: (config: ConfigService<AppConfig, true>) => new RedisKeys(config.get('redis', { infer: true }).keyPrefix),
    },
    {
      provide: AtRestCiphers,
      inject: [ConfigService],
      // Configuration lets the secret be absent only in sandbox mode, where only test data flows.
      useFactory: (config: ConfigService<AppConfig, true>) => new AtRestCiphers(config.get('guesty', { infer: true }).clientSecret ?? ''),
    },
    RedisHealthIndicator,
    StoreOutbox,
    SharedFetches,
    SharedReadCache,
  ],
  exports: [KeyValueStore, RedisKeys, AtRestCiphers, RedisHealthIndicator, StoreOutbox, SharedFetches, SharedReadCache],
})
export class RedisModule implements OnModuleInit, OnApplicationShutdown {
  constructor(@Inject(KeyValueStore) private readonly store: KeyValueStore) {}

  // A short wait so a healthy start is ready at once; an unreachable Redis does not stop the
  // start: readiness reports it until the client's reconnects succeed.
  async onModuleInit(): Promise<void> {
    if (!(await this.store.whenConnected(CONNECT_WAIT_MS))) {
      new Logger('Redis').error(`Redis is not reachable after ${CONNECT_WAIT_MS} ms; readiness answers 503 until it is`);
      return;
    }
    // A policy that cannot be read now is read again by every readiness probe.
    const refusal = evictionRefusal(await this.store.evictionPolicy().catch(() => 'noeviction'));
    if (refusal) throw new Error(refusal);
  }

  // Closed after the HTTP server has drained (onModuleDestroy would run before in-flight requests end).
  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}
