import { RedisKeys } from '../redis/redis-keys';

/** The journal's id for one attach of a session (by Idempotency-Key or 3-D Secure attempt): a retry finds it. */
export function attachIntentId(sessionId: string, discriminator: string): string {
  return RedisKeys.digest(`payment-method:${sessionId}:${discriminator}`);
}
