import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { DomainError } from '../common/errors/domain-error';
import { KeyValueStore } from '../redis/key-value-store';
import { RedisKeys } from '../redis/redis-keys';

export interface ThreeDsState {
  sessionId: string;
  attemptId: string;
}

const STATE = /^[A-Za-z0-9_-]{32}$/;

/**
 * The one-time state carried by the 3-D Secure return URLs: 192 random bits, stored server-side
 * under a digest, consumed atomically. A forged, replayed or expired state finds nothing.
 */
@Injectable()
export class ThreeDsStates {
  constructor(
    @Inject(KeyValueStore) private readonly store: KeyValueStore,
    private readonly keys: RedisKeys,
  ) {}

  async issue(state: ThreeDsState, ttlMs: number): Promise<string> {
    const value = randomBytes(24).toString('base64url');
    await this.store.set(this.keys.threeDsState(RedisKeys.digest(value)), JSON.stringify(state), { ttlMs }).catch((cause: unknown) => {
      throw DomainError.storeUnavailable(cause);
    });
    return value;
  }

  /** The state's attempt, once; null for anything else (absent, malformed, forged, used, expired). */
  async consume(value: string | undefined): Promise<ThreeDsState | null> {
    if (!value || !STATE.test(value)) return null;
    const raw = await this.store.take(this.keys.threeDsState(RedisKeys.digest(value)));
    return raw ? (JSON.parse(raw) as ThreeDsState) : null;
  }
}
