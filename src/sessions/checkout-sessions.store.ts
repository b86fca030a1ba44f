import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { Clock } from '../primitives/clock';
import { DomainError } from '../common/errors/domain-error';
import { MetricsService } from '../metrics/metrics.service';
import { AtRestCipher, AtRestCiphers, SealedValue } from '../redis/at-rest-cipher';
import { BatchAnswer, BatchStep, KeyValueStore, StepsBeside } from '../redis/key-value-store';
import { RedisKeys } from '../redis/redis-keys';
import { StoreOutbox } from '../redis/store-outbox';
import { CheckoutSession, SessionPointer, sessionNotFound } from './checkout-session';

const SESSION_ID = /^cs_[A-Za-z0-9_-]{32}$/;
const CHANGE_ATTEMPTS = 3;

/** A session change: the next state, or null to leave it as it is. */
export type SessionChange = (current: CheckoutSession) => CheckoutSession | null;

export function isSessionId(id: string): boolean {
  return SESSION_ID.test(id);
}

/** A new session's write as a step of a batch, and what judges its answer (see CheckoutSessionsStore.createStep). */
export interface SessionCreateStep {
  step: BatchStep & { op: 'setIfAbsent' };
  written(answer: BatchAnswer): CheckoutSession;
}

/**
 * A session as Redis holds it: under its ref, without its id (docs/product-spec.md §7). The id is
 * sealed with the service's at-rest key, so that work that starts from a record (the journal's
 * sweep, a booking's replay) can still name the session, and whoever reads Redis cannot.
 */
type StoredSession = Omit<CheckoutSession, 'id'> & { sealedId: SealedValue };

/** A record written before the ref: under the raw id, carrying it. */
type LegacySession = CheckoutSession & { sealedId?: undefined };

/**
 * Checkout sessions in Redis, visible to every replica, gone when their TTL ends. Every change is a
 * compare-and-set on the session's version (docs/product-spec.md §6.4): a writer that read an older state, or whose
 * lease lapsed while another went on, cannot overwrite what came after; and `succeeded` never goes back.
 */
@Injectable()
export class CheckoutSessionsStore {
  private readonly cipher: AtRestCipher;

  constructor(
    @Inject(KeyValueStore) private readonly store: KeyValueStore,
    private readonly keys: RedisKeys,
    private readonly clock: Clock,
    private readonly metrics: MetricsService,
    private readonly outbox: StoreOutbox,
    ciphers: AtRestCiphers,
  ) {
    this.cipher = ciphers.for('session-id');
  }

  /** 192 random bits: the id is the capability to pay for the reservation. */
  newId(): string {
    return `cs_${randomBytes(24).toString('base64url')}`;
  }

  /** The session the guest names by its id (from a URL), or null when there is none. */
  async load(id: string): Promise<CheckoutSession | null> {
    const key = this.storedAt(id);
    return key === null ? null : this.fromStored(id, await this.read(key));
  }

  /**
   * Where the session of this id is kept, to be read beside something else in its slot (see
   * RedisKeys.checkoutSession); null for an id that cannot name a session.
   */
  storedAt(id: string): string | null {
    return isSessionId(id) ? this.keys.checkoutSession(RedisKeys.sessionRef(id)) : null;
  }

  /**
   * The session of this id from what its key held (`raw`, read by the caller); when that was
   * nothing, the session found under a key of an earlier version is moved to it first.
   */
  async fromStored(id: string, raw: string | null): Promise<CheckoutSession | null> {
    const key = this.keys.checkoutSession(RedisKeys.sessionRef(id));
    const found =
      raw ??
      (await this.moveOlder(key, this.keys.untaggedCheckoutSession(RedisKeys.sessionRef(id)), id)) ??
      (await this.moveOlder(key, this.keys.legacyCheckoutSession(id), id));
    return found ? this.open(found, key, id) : null;
  }

  /** The session a record points at by its ref (the journal, a booking), with its id unsealed. */
  async loadByRef(ref: string): Promise<CheckoutSession | null> {
    const key = this.keys.checkoutSession(ref);
    const raw = (await this.read(key)) ?? (await this.moveOlder(key, this.keys.untaggedCheckoutSession(ref), null));
    return raw ? this.open(raw, key, null) : null;
  }

  /** The session a record points at (see SessionPointer), or null when there is none. */
  pointedAt(pointer: SessionPointer): Promise<CheckoutSession | null> {
    if (pointer.sessionRef) return this.loadByRef(pointer.sessionRef);
    return pointer.sessionId ? this.load(pointer.sessionId) : Promise.resolve(null);
  }

  async require(id: string): Promise<CheckoutSession> {
    const session = await this.load(id);
    if (!session) throw sessionNotFound();
    return session;
  }

  async create(session: Omit<CheckoutSession, 'version'>): Promise<CheckoutSession> {
    const { step, written } = this.createStep(session);
    const [answer] = await this.store.batch([step]).catch((cause: unknown) => {
      throw DomainError.storeUnavailable(cause);
    });
    return written(answer);
  }

  /**
   * A new session's write as a step of the caller's batch, so it costs no round trip of its own
   * (opening a session writes it in the step that counts the opening). `written`: the session, once
   * the step's answer says it was written; a step that found the key (an id taken) or did not run throws.
   */
  createStep(session: Omit<CheckoutSession, 'version'>): SessionCreateStep {
    const created: CheckoutSession = { ...session, version: 1 };
    const { key, ttlMs } = this.placeOf(created);
    return {
      step: { op: 'setIfAbsent', key, value: this.seal(created, key), ttlMs },
      written: (answer) => {
        if (answer === null) throw new Error('a new checkout session was not written: its step did not run');
        if (answer !== true) throw new Error('a new checkout session id is already taken');
        this.counted(created, undefined);
        return created;
      },
    };
  }

  /**
   * Applies `change` to the current session by compare-and-set, reading again when another writer
   * came first. Answers the session as it now is; 404 when it is gone, 409 when writers kept racing.
   */
  async update(id: string, change: SessionChange, known?: CheckoutSession): Promise<CheckoutSession> {
    for (let attempt = 0; attempt < CHANGE_ATTEMPTS; attempt += 1) {
      // The session as the caller read it under its lease saves a read; a stale one only fails the compare.
      const current = attempt === 0 && known ? known : await this.require(id);
      const next = change(current);
      if (next === null) return current;
      const written = { ...this.checkedMove(current, next), version: current.version + 1 };
      if (await this.write(current.version, written, current.status)) return written;
    }
    throw new DomainError('step_in_progress', 'The checkout session changed meanwhile; try again.', { retryAfterSeconds: 1 });
  }

  /**
   * Records a change that follows a landed upstream write; while Redis is down it is kept in memory
   * and applied later (docs/product-spec.md §6.6). `fallback`, the session the caller read under
   * its lease, is tried first, and written if the session is gone by then. `beside`: same-slot
   * steps written with that first try, told `written()` when they ran.
   */
  async recordOutcome(
    id: string,
    change: SessionChange,
    fallback: CheckoutSession,
    beside?: StepsBeside<CheckoutSession>,
  ): Promise<CheckoutSession> {
    let result = change(fallback) ?? fallback;
    let tryBeside = beside !== undefined;
    await this.outbox.write(this.keys.checkoutSession(RedisKeys.sessionRef(id)), `checkout session ${result.status}`, async () => {
      try {
        // Once: a retry from the outbox (Redis was down) writes the session alone.
        let known: CheckoutSession | undefined = fallback;
        if (tryBeside && beside) {
          tryBeside = false;
          const written = await this.changeBeside(fallback, change, beside);
          if (written) {
            result = written;
            return;
          }
          // `fallback` is not the stored version: the change is applied to the session read now.
          known = undefined;
        }
        result = await this.update(id, change, known);
      } catch (error) {
        if (!(error instanceof DomainError && error.code === 'session_not_found')) throw error;
        await this.write(null, { ...result, version: result.version + 1 }, undefined);
      }
    });
    return result;
  }

  /** `change` applied to `known` and written with `beside`'s steps in one step (`known` itself when it changes nothing); null when `known` is not the stored version any more. */
  private async changeBeside(
    known: CheckoutSession,
    change: SessionChange,
    beside: StepsBeside<CheckoutSession>,
  ): Promise<CheckoutSession | null> {
    const next = change(known);
    // Nothing to change: the session stays as it is, and the steps beside are left to their owner.
    if (next === null) return known;
    const written = { ...this.checkedMove(known, next), version: known.version + 1 };
    const step = this.writeStep(known.version, written);
    const [replaced] = await this.store.batch([step, ...beside.steps(written)]).catch((cause: unknown) => {
      throw DomainError.storeUnavailable(cause);
    });
    if (replaced !== true) return null;
    this.counted(written, known.status);
    beside.written();
    return written;
  }

  private checkedMove(current: CheckoutSession, next: CheckoutSession): CheckoutSession {
    if (current.status === 'succeeded' && next.status !== 'succeeded') {
      throw new Error('a succeeded checkout session never goes back');
    }
    return next;
  }

  private async write(expectedVersion: number | null, session: CheckoutSession, previousStatus: string | undefined): Promise<boolean> {
    const { key, value, ttlMs } = this.writeStep(expectedVersion, session);
    const written = await this.store.replaceIfVersion(key, expectedVersion, value, ttlMs).catch((cause: unknown) => {
      throw DomainError.storeUnavailable(cause);
    });
    if (written) this.counted(session, previousStatus);
    return written;
  }

  /** The compare-and-set that writes `session` over the stored version `expectedVersion` (null: only a new one). */
  private writeStep(expectedVersion: number | null, session: CheckoutSession): BatchStep & { op: 'replaceIfVersion' } {
    const { key, ttlMs } = this.placeOf(session);
    return { op: 'replaceIfVersion', key, expectedVersion, value: this.seal(session, key), ttlMs };
  }

  private counted(session: CheckoutSession, previousStatus: string | undefined): void {
    if (session.status !== previousStatus) this.metrics.sessionTransitions.inc({ status: session.status });
  }

  /** The session's key and the life it has left; one whose life is over is not written. */
  private placeOf(session: CheckoutSession): { key: string; ttlMs: number } {
    const ttlMs = session.expiresAt - this.clock.now();
    if (ttlMs <= 0) throw new DomainError('session_not_found', 'The checkout session has expired.');
    return { key: this.keys.checkoutSession(RedisKeys.sessionRef(session.id)), ttlMs };
  }

  private read(key: string): Promise<string | null> {
    return this.store.get(key).catch((cause: unknown) => {
      throw DomainError.storeUnavailable(cause);
    });
  }

  private seal(session: CheckoutSession, key: string): string {
    const { id, ...rest } = session;
    return JSON.stringify({ ...rest, sealedId: this.cipher.seal(id, key) } satisfies StoredSession);
  }

  /** The session of a stored record; `id` is the one the guest presented, or null to unseal it. */
  private open(raw: string, key: string, id: string | null): CheckoutSession | null {
    const { sealedId, ...rest } = JSON.parse(raw) as StoredSession | LegacySession;
    const sessionId = id ?? (sealedId ? this.cipher.open(sealedId, key) : null);
    if (sessionId === null) return null;
    const session: CheckoutSession = { ...rest, id: sessionId };
    return session.expiresAt > this.clock.now() ? session : null;
  }

  /**
   * A session under an earlier version's key (docs/deploying.md): before the hash tag (its id
   * sealed with that key) or before the digest (under its raw id). Moved to `key` on first use with
   * its version and remaining life, the old key deleted, so one record stays. `id`: what the guest
   * presented, or null when only the ref is known.
   */
  private async moveOlder(key: string, olderKey: string, id: string | null): Promise<string | null> {
    const raw = await this.read(olderKey);
    if (!raw) return null;
    const session = this.open(raw, olderKey, id);
    if (!session) return null;
    const moved = this.seal(session, key);
    // Another replica may move it at the same moment: the first write stands, and both read it.
    const written = await this.store.replaceIfVersion(key, null, moved, session.expiresAt - this.clock.now()).catch((cause: unknown) => {
      throw DomainError.storeUnavailable(cause);
    });
    await this.store.delete(olderKey).catch(() => undefined);
    return written ? moved : this.read(key);
  }
}
