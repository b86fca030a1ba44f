import { Inject, Injectable } from '@nestjs/common';
import { randomBytes, randomUUID } from 'node:crypto';
import { Clock } from '../common/clock';
import { DomainError } from '../common/errors/domain-error';
import { MetricsService } from '../metrics/metrics.service';
import { KeyValueStore } from '../redis/key-value-store';
import { RedisKeys } from '../redis/redis-keys';
import { CheckoutSession } from './checkout-session';

const SESSION_LOCK_MS = 30_000;
const SESSION_ID = /^cs_[A-Za-z0-9_-]{32}$/;

/**
 * Checkout sessions in Redis, visible to every replica, gone when their TTL ends. Changes to one
 * session are serialised by a short lock so that two replicas (a card submission and a 3-D Secure
 * return, or two returns) never overwrite each other.
 */
@Injectable()
export class CheckoutSessionsStore {
  constructor(
    @Inject(KeyValueStore) private readonly store: KeyValueStore,
    private readonly keys: RedisKeys,
    private readonly clock: Clock,
    private readonly metrics: MetricsService,
  ) {}

  // Status last written by this replica, so a save that keeps the status is not counted again.
  private readonly lastSaved = new Map<string, string>();

  /** 192 random bits: the id is the capability to pay for the reservation. */
  newId(): string {
    return `cs_${randomBytes(24).toString('base64url')}`;
  }

  async load(id: string): Promise<CheckoutSession | null> {
    if (!SESSION_ID.test(id)) return null;
    const raw = await this.store.get(this.keys.checkoutSession(id)).catch((cause: unknown) => {
      throw DomainError.storeUnavailable(cause);
    });
    if (!raw) return null;
    const session = JSON.parse(raw) as CheckoutSession;
    return session.expiresAt > this.clock.now() ? session : null;
  }

  async require(id: string): Promise<CheckoutSession> {
    const session = await this.load(id);
    if (!session) throw new DomainError('session_not_found', 'No checkout session has this id, or it has expired.');
    return session;
  }

  async save(session: CheckoutSession): Promise<void> {
    const ttlMs = session.expiresAt - this.clock.now();
    if (ttlMs <= 0) throw new DomainError('session_not_found', 'The checkout session has expired.');
    const previous = this.lastSaved.get(session.id);
    await this.store.set(this.keys.checkoutSession(session.id), JSON.stringify(session), { ttlMs }).catch((cause: unknown) => {
      throw DomainError.storeUnavailable(cause);
    });
    if (previous !== session.status) this.metrics.sessionTransitions.inc({ status: session.status });
    this.lastSaved.set(session.id, session.status);
    if (this.lastSaved.size > 10_000) this.lastSaved.delete(this.lastSaved.keys().next().value as string);
  }

  /** Runs `change` while holding the session's lock; another change in progress answers 409. */
  async withLock<T>(id: string, change: () => Promise<T>): Promise<T> {
    const key = this.keys.checkoutSessionLock(id);
    const owner = randomUUID();
    const locked = await this.store.set(key, owner, { ifAbsent: true, ttlMs: SESSION_LOCK_MS }).catch((cause: unknown) => {
      throw DomainError.storeUnavailable(cause);
    });
    if (!locked) {
      throw new DomainError('invalid_state', 'Another payment step for this session is still running; try again in a moment.', { retryAfterSeconds: 1 });
    }
    try {
      return await change();
    } finally {
      await this.store.deleteIfEquals(key, owner).catch(() => undefined);
    }
  }
}
