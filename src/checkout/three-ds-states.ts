import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { DomainError } from '../common/errors/domain-error';
import { KeyValueStore } from '../redis/key-value-store';
import { RedisKeys } from '../redis/redis-keys';

export type ThreeDsOutcome = 'success' | 'failure';

export interface ThreeDsState {
  sessionId: string;
  attemptId: string;
}

const STATE = /^[A-Za-z0-9_-]{32}$/;

/**
 * The one-time states carried by the 3-D Secure return URLs: 192 random bits each, one for the
 * success path and one for the failure path, stored server-side under a digest of the path and the
 * value and consumed atomically. A state opens only the path it was issued for (docs/product-spec.md §6.7); a
 * forged, replayed, swapped or expired state finds nothing and consumes nothing.
 */
@Injectable()
export class ThreeDsStates {
  constructor(
    @Inject(KeyValueStore) private readonly store: KeyValueStore,
    private readonly keys: RedisKeys,
  ) {}

  async issue(state: ThreeDsState, ttlMs: number): Promise<Record<ThreeDsOutcome, string>> {
    const values = { success: randomBytes(24).toString('base64url'), failure: randomBytes(24).toString('base64url') };
    for (const outcome of ['success', 'failure'] as const) {
      await this.store.set(this.key(outcome, values[outcome]), JSON.stringify(state), { ttlMs }).catch((cause: unknown) => {
        throw DomainError.storeUnavailable(cause);
      });
    }
    return values;
  }

  /** The state's attempt, once, on its own path; null for anything else. Throws only when Redis fails. */
  async consume(outcome: ThreeDsOutcome, value: string | undefined): Promise<ThreeDsState | null> {
    if (!value || !STATE.test(value)) return null;
    const raw = await this.store.take(this.key(outcome, value));
    return raw ? (JSON.parse(raw) as ThreeDsState) : null;
  }

  private key(outcome: ThreeDsOutcome, value: string): string {
    return this.keys.threeDsState(RedisKeys.digest(`${outcome}:${value}`));
  }
}
