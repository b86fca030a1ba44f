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
/** How long a used state still tells a second arrival of the same return that it is a duplicate. */
const USED_TTL_MS = 30 * 60_000;

/** A return's state as presented: the attempt it opens, or a duplicate of a return that already used it. */
export type PresentedState = { attemptId: string; duplicate: boolean };

/** What Redis holds: the attempt only; its key already binds the session (docs/product-spec.md §7). */
interface StoredState {
  attemptId: string;
}

/**
 * The one-time states of the 3-D Secure return URLs: 192 random bits, one per path, stored under a
 * digest of session, path and value and consumed once (GETDEL), so a forged, swapped or expired
 * state finds and consumes nothing (docs/product-spec.md §6.7). A used state is remembered a while,
 * so a double submit is told apart from a forgery.
 */
@Injectable()
export class ThreeDsStates {
  constructor(
    @Inject(KeyValueStore) private readonly store: KeyValueStore,
    private readonly keys: RedisKeys,
  ) {}

  /**
   * Two fresh values for the return URLs. Nothing is stored yet: a card that needs no 3-D Secure
   * never comes back by them, so its checkout spends no Redis write on them (see `keep`).
   */
  mint(): Record<ThreeDsOutcome, string> {
    return { success: randomBytes(24).toString('base64url'), failure: randomBytes(24).toString('base64url') };
  }

  /** Stores the minted values once the issuer asks for authentication, before the guest is sent to it. */
  async keep(state: ThreeDsState, values: Record<ThreeDsOutcome, string>, ttlMs: number): Promise<void> {
    await Promise.all(
      (['success', 'failure'] as const).map((outcome) =>
        this.store.set(
          this.key(state.sessionId, outcome, values[outcome]).state,
          JSON.stringify({ attemptId: state.attemptId } satisfies StoredState),
          {
            ttlMs,
          },
        ),
      ),
    ).catch((cause: unknown) => {
      throw DomainError.storeUnavailable(cause);
    });
  }

  /**
   * What `consume` would find, consuming nothing: a return checks its state this way before it waits
   * for the reservation, so a return that cannot be carried out yet leaves its state valid.
   */
  async peek(sessionId: string, outcome: ThreeDsOutcome, value: string | undefined): Promise<PresentedState | null> {
    if (!value || !STATE.test(value)) return null;
    const key = this.key(sessionId, outcome, value);
    return presented(await this.store.get(key.state), false) ?? presented(await this.store.get(key.used), true);
  }

  /**
   * The state's attempt, once, on its own session's own path (`duplicate: false`); the same state
   * presented again on that path (`duplicate: true`); null for anything else, which consumes nothing.
   * Throws only when Redis fails.
   */
  async consume(sessionId: string, outcome: ThreeDsOutcome, value: string | undefined): Promise<PresentedState | null> {
    if (!value || !STATE.test(value)) return null;
    const key = this.key(sessionId, outcome, value);
    const raw = await this.store.get(key.state);
    if (!raw) return presented(await this.store.get(key.used), true);
    // Remembered as used before it stops being valid: a second arrival of the return that reads in
    // between finds the one or the other, never neither (which would answer it `failed`).
    await this.store.set(key.used, raw, { ttlMs: USED_TTL_MS });
    const taken = await this.store.take(key.state);
    return taken ? presented(taken, false) : presented(raw, true);
  }

  private key(sessionId: string, outcome: ThreeDsOutcome, value: string): { state: string; used: string } {
    return this.keys.threeDsState(RedisKeys.digest(`${sessionId}:${outcome}:${value}`));
  }
}

/** A stored state as presented (a record written before the ref also carries the session's id: only the attempt is read). */
function presented(raw: string | null, duplicate: boolean): PresentedState | null {
  return raw ? { attemptId: (JSON.parse(raw) as StoredState).attemptId, duplicate } : null;
}
