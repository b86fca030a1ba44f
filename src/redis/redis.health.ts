import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import { KeyValueStore } from './key-value-store';

const READINESS_TIMEOUT_MS = 1_000;
/** How often readiness reads the memory policy again: a probe answers with the last reading, never waiting for one. */
const POLICY_READ_EVERY_MS = 5_000;

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
  /** The memory policy as last read (the start refused an evicting one), when, and a read on its way. */
  private policy = 'noeviction';
  private policyReadAt = 0;
  private policyReading?: Promise<void>;

  constructor(
    @Inject(KeyValueStore) private readonly store: KeyValueStore,
    private readonly health: HealthIndicatorService,
  ) {}

  /**
   * The policy as last read, a new read started in the background when the last is older than
   * POLICY_READ_EVERY_MS: a probe stays one PING, so a busy replica is not taken for an unready one.
   */
  private policyNow(): string {
    if (!this.policyReading && Date.now() - this.policyReadAt >= POLICY_READ_EVERY_MS) {
      this.policyReading = this.store
        .evictionPolicy()
        .then(
          (policy) => {
            this.policy = policy;
          },
          () => undefined,
        )
        .finally(() => {
          this.policyReadAt = Date.now();
          this.policyReading = undefined;
        });
    }
    return this.policy;
  }

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
      const refusal = evictionRefusal(this.policyNow());
      if (refusal) return indicator.down({ store: this.store.kind, message: refusal });
      return indicator.up({ store: this.store.kind });
    } catch (error) {
      return indicator.down({ store: this.store.kind, message: error instanceof Error ? error.message : 'unreachable' });
    } finally {
      clearTimeout(timer);
    }
  }
}
