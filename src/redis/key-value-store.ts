export interface SetOptions {
  /** Expire the key after this many milliseconds. */
  ttlMs?: number;
  /** Write only when the key does not exist yet (SET NX); `set` then answers whether it wrote. */
  ifAbsent?: boolean;
}

/**
 * The shared state every replica sees. Redis in production; an in-process twin for a single
 * development replica. Both pass the same contract tests (key-value-store.contract.ts), so
 * features never know which one they talk to. Every key passed in comes from RedisKeys.
 */
export abstract class KeyValueStore {
  /** "redis" or "memory", for the start-up log and readiness. */
  abstract readonly kind: 'redis' | 'memory';

  abstract ping(): Promise<void>;
  /** Resolves true once connected, false when `timeoutMs` passed first (the store keeps trying). */
  abstract whenConnected(timeoutMs: number): Promise<boolean>;
  abstract get(key: string): Promise<string | null>;
  abstract set(key: string, value: string, options?: SetOptions): Promise<boolean>;
  /** Reads and deletes in one step: a one-time value can be consumed once only. */
  abstract take(key: string): Promise<string | null>;
  abstract delete(...keys: string[]): Promise<void>;
  /** Deletes the key only while it still holds `value` (releasing a lock that is still ours). */
  abstract deleteIfEquals(key: string, value: string): Promise<boolean>;
  /** Milliseconds until the key expires; null when it is missing or has no expiry. */
  abstract ttlMs(key: string): Promise<number | null>;
  abstract close(): Promise<void>;
}
