import { Inject, Injectable, Logger } from '@nestjs/common';
import { DomainError } from '../common/errors/domain-error';
import { IDEMPOTENCY_RECORD_TTL_MS } from '../common/idempotency/idempotency.service';
import { KeyValueStore } from '../redis/key-value-store';
import { RedisKeys } from '../redis/redis-keys';
import { AddedExtraView } from './dto/extras.view';

/**
 * The lines of one extras request (one session, one Idempotency-Key) that already landed upstream.
 * A request that fails after some lines were added frees its key (the failure is a 5xx); the retry
 * with the same key (and so, the Idempotency check guarantees, the same body) must then add only
 * the rest, or the guest pays the first lines twice. Kept beside the key's record, as long.
 */
@Injectable()
export class ExtrasProgress {
  private readonly logger = new Logger('ExtrasProgress');

  constructor(
    @Inject(KeyValueStore) private readonly store: KeyValueStore,
    @Inject(RedisKeys) private readonly keys: RedisKeys,
  ) {}

  async load(sessionId: string, idempotencyKey: string): Promise<AddedExtraView[]> {
    const raw = await this.store.get(this.key(sessionId, idempotencyKey)).catch((cause: unknown) => {
      throw DomainError.storeUnavailable(cause);
    });
    return raw ? (JSON.parse(raw) as AddedExtraView[]) : [];
  }

  /** Best effort: the line has landed whatever the store says, and this request goes on. */
  async save(sessionId: string, idempotencyKey: string, added: AddedExtraView[]): Promise<void> {
    await this.store.set(this.key(sessionId, idempotencyKey), JSON.stringify(added), { ttlMs: IDEMPOTENCY_RECORD_TTL_MS }).catch((cause: unknown) => {
      this.logger.warn({ err: cause, sessionId }, 'could not record the extras added so far; a retry after a failure may add them again');
    });
  }

  /** Once the answer is final, the Idempotency-Key record replays it and this is no longer needed. */
  async clear(sessionId: string, idempotencyKey: string): Promise<void> {
    await this.store.delete(this.key(sessionId, idempotencyKey)).catch(() => undefined);
  }

  private key(sessionId: string, idempotencyKey: string): string {
    return this.keys.idempotencyRecord(`extras-progress:${sessionId}`, idempotencyKey);
  }
}
