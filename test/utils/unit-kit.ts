import { Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { Clock } from '../../src/common/clock';
import { AppConfig } from '../../src/config/app-config';
import { parseConfiguration } from '../../src/config/parse-configuration';
import { BatchStep, SetOptions } from '../../src/redis/key-value-store';
import { MemoryKeyValueStore } from '../../src/redis/memory-key-value-store';
import { ReservationLeases } from '../../src/journal/reservation-leases';
import { WriteJournal } from '../../src/journal/write-journal';
import { MetricsService } from '../../src/metrics/metrics.service';
import { RedisKeys } from '../../src/redis/redis-keys';
import { StoreOutbox } from '../../src/redis/store-outbox';

/**
 * The seams of the unit tier: a clock whose time moves only when the code under test waits (no
 * real sleeps), the in-process store made to fail on demand, and the configuration as the service
 * would read it. Services are built with these and a fake of the one seam under test.
 */

export class SteppingClock extends Clock {
  time = 1_700_000_000_000;
  readonly slept: number[] = [];

  now(): number {
    return this.time;
  }

  override sleep(ms: number): Promise<void> {
    this.slept.push(ms);
    this.time += ms;
    return Promise.resolve();
  }
}

/** The in-process store, failing every command while `down`, as Redis does when it is gone. */
export class FailingStore extends MemoryKeyValueStore {
  down = false;

  private guard<T>(call: () => Promise<T>): Promise<T> {
    return this.down ? Promise.reject(new Error('Redis is down')) : call();
  }

  override get(key: string) {
    return this.guard(() => super.get(key));
  }
  override set(key: string, value: string, options?: SetOptions) {
    return this.guard(() => super.set(key, value, options));
  }
  override batch(steps: BatchStep[]) {
    return this.guard(() => super.batch(steps));
  }
  override replaceIfVersion(key: string, expectedVersion: number | null, value: string, ttlMs: number) {
    return this.guard(() => super.replaceIfVersion(key, expectedVersion, value, ttlMs));
  }
  override indexAdd(key: string, member: string, score: number) {
    return this.guard(() => super.indexAdd(key, member, score));
  }
}

/** The configuration of this environment (sandbox defaults), as ConfigService serves it. */
export function unitConfig(env: Record<string, string> = {}): { config: AppConfig; service: ConfigService<AppConfig, true> } {
  const config = parseConfiguration({ NODE_ENV: 'test', LOG_LEVEL: 'silent', ...env });
  return { config, service: new ConfigService<AppConfig, true>({ ...config }) };
}

/** Unit specs test outcomes, not log lines: Nest's console logger stays quiet. */
export function quietLogs(): void {
  Logger.overrideLogger(false);
}

/**
 * The write journal's floor for a unit spec: the stepping clock, the failing store, the key
 * builder, the outbox, the configuration, the leases and the journal itself, all real.
 */
export function journalWorld(env: Record<string, string> = {}) {
  const clock = new SteppingClock();
  const store = new FailingStore(() => clock.now());
  const keys = new RedisKeys('t:');
  const metrics = new MetricsService();
  const outbox = new StoreOutbox(metrics);
  const { service: config } = unitConfig({ RESERVATION_WRITE_SPACING_MS: '0', ...env });
  const leases = new ReservationLeases(store, keys, clock, config);
  const journal = new WriteJournal(store, keys, leases, outbox, clock, metrics);
  return { clock, store, keys, metrics, outbox, config, leases, journal };
}
