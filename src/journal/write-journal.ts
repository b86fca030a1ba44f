import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { Clock } from '../common/clock';
import { DomainError } from '../common/errors/domain-error';
import { AppConfig } from '../config/app-config';
import { MetricsService } from '../metrics/metrics.service';
import { BatchStep, KeyValueStore } from '../redis/key-value-store';
import { RedisKeys } from '../redis/redis-keys';
import { StoreOutbox } from '../redis/store-outbox';
import { ReservationLease, ReservationLeases } from './reservation-leases';
import { IntentKind, IntentState, Reconciliation, WriteIntent, canMove, isOpen, mayResend, readIntent } from './write-intent';
import { inSpan } from '../common/telemetry/in-span';

/** Re-reads right after a write without a clear answer: the upstream shows a write after a moment. */
export const RECONCILE_DELAYS_MS = [250, 1_000, 2_000];
/** When the sweep looks at an intent again while it stays unknown. */
const RECHECK_AFTER_MS = [5_000, 15_000, 30_000, 60_000, 300_000];
/** Open intents are evidence until reconciled; settled ones answer retries of their key for a day. */
const OPEN_TTL_MS = 7 * 24 * 3_600_000;
const SETTLED_TTL_MS = 24 * 3_600_000;

/** Knows how to find one kind of write upstream, and whom to tell when someone else settles it. */
export interface Reconciler<Outcome = unknown> {
  reconcile(intent: WriteIntent<unknown, Outcome>): Promise<Reconciliation<Outcome>>;
  /** Called when an intent is settled by anyone but its own writer (the sweep, a later request). */
  settled(intent: WriteIntent<unknown, Outcome>): Promise<void>;
}

export interface WriteSpec<Request, Outcome> {
  kind: IntentKind;
  /** Stable for one logical write (an Idempotency-Key, a 3-D Secure attempt): a retry finds it. */
  intentId: string;
  request: Request;
  /** Ids of what the reservation holds of this kind before the write; read only when sending. */
  snapshot: () => Promise<string[]>;
  context: WriteIntent['context'];
  send: () => Promise<Outcome>;
  /** True for an error that surely means nothing happened upstream (an answered refusal). */
  refused: (error: unknown) => boolean;
  /** This intent as the caller read it under the same lease (null: it has none); undefined: read here. */
  earlier?: WriteIntent<Request, Outcome> | null;
  /** The caller settled the reservation's open intent under the same lease just before. */
  openSettled?: boolean;
  /** Records of the reservation's own hash tag written in the same step as the outcome, when it landed. */
  alsoOnLanded?: (outcome: Outcome) => BatchStep[];
}

/** A member of the due index names the reservation too: the intent lives under its hash tag. */
export function dueMember(reservationId: string, intentId: string): string {
  return `${reservationId} ${intentId}`;
}

export function fromDueMember(member: string): { reservationId: string; intentId: string } | null {
  const [reservationId, intentId] = member.split(' ');
  return reservationId && intentId ? { reservationId, intentId } : null;
}

function tookOver(): DomainError {
  return new DomainError('invalid_state', 'Another payment step for this reservation took over; nothing was sent. Try again in a moment.', {
    retryAfterSeconds: 1,
  });
}

function pending(cause?: unknown): DomainError {
  return DomainError.outcomePending(
    'The booking platform has not confirmed this step yet; we are checking and will not repeat it. Try again in a moment.',
    cause,
  );
}

/**
 * The one door for upstream writes on reservations (docs/product-spec.md §6, docs/write-journal.md): an intent in
 * Redis before the request leaves, its outcome after, `unknown` until a reconciler has read the
 * upstream. While an intent on a reservation is open, no other write on it is sent. Callers hold
 * the reservation's lease (ReservationLeases) around every call here.
 */
@Injectable()
export class WriteJournal {
  private readonly logger = new Logger('WriteJournal');
  private readonly reconcilers = new Map<IntentKind, Reconciler<unknown>>();
  /** WRITE_SETTLE_SECONDS: until this long after its send, a write may still land (docs/write-journal.md). */
  readonly settleMs: number;

  constructor(
    @Inject(KeyValueStore) private readonly store: KeyValueStore,
    private readonly keys: RedisKeys,
    private readonly leases: ReservationLeases,
    private readonly outbox: StoreOutbox,
    private readonly clock: Clock,
    private readonly metrics: MetricsService,
    config: ConfigService<AppConfig, true>,
  ) {
    this.settleMs = config.get('reservationWrites', { infer: true }).settleMs;
  }

  register<Outcome>(kind: IntentKind, reconciler: Reconciler<Outcome>): void {
    this.reconcilers.set(kind, reconciler);
  }

  async load<Request = unknown, Outcome = unknown>(reservationId: string, intentId: string): Promise<WriteIntent<Request, Outcome> | null> {
    const raw = await this.storeCall(() => this.store.get(this.keys.reservationWrites(reservationId).intent(intentId)));
    return raw ? readIntent<Request, Outcome>(raw) : null;
  }

  /**
   * In one round trip: the intent with this id, the reservation's open intent pointer, and the
   * values of `alsoRead` (keys of the reservation's own hash tag, e.g. the card on file).
   */
  async peek<Request = unknown, Outcome = unknown>(
    reservationId: string,
    intentId: string,
    alsoRead: string[] = [],
  ): Promise<{ intent: WriteIntent<Request, Outcome> | null; openIntentId: string | null; also: (string | null)[] }> {
    const writes = this.keys.reservationWrites(reservationId);
    const [intent, openIntentId, ...also] = await this.storeCall(() =>
      this.store.batch([writes.intent(intentId), writes.openIntent, ...alsoRead].map((key) => ({ op: 'get' as const, key }))),
    );
    const text = (value: unknown) => (typeof value === 'string' ? value : null);
    const raw = text(intent);
    return { intent: raw ? readIntent<Request, Outcome>(raw) : null, openIntentId: text(openIntentId), also: also.map(text) };
  }

  /**
   * The reservation's open intent after trying to settle it once; null when none is open.
   * `openIntentId`: the pointer, when the caller read it already (undefined: read it here).
   */
  async settleOpen(lease: ReservationLease, openIntentId?: string | null): Promise<WriteIntent | null> {
    const openId =
      openIntentId !== undefined
        ? openIntentId
        : await this.storeCall(() => this.store.get(this.keys.reservationWrites(lease.reservationId).openIntent));
    if (!openId) return null;
    const open = await this.load(lease.reservationId, openId);
    if (!open || !isOpen(open.state)) return null;
    const settled = await this.reconcileOnce(open, true);
    return isOpen(settled.state) ? settled : null;
  }

  /**
   * Performs one write exactly once: an earlier intent with the same id is answered from the
   * journal (or reconciled), never sent again unless it surely did not happen. The intent is
   * written `prepared`; the request leaves only after the fence step found this writer's lease
   * still in Redis and moved it to `sending`. Throws the send's own error for a refusal, and
   * `outcome_pending` whenever the request may have left without a clear answer.
   */
  perform<Request, Outcome>(lease: ReservationLease, spec: WriteSpec<Request, Outcome>): Promise<Outcome> {
    return inSpan(`journal ${spec.kind}`, { 'journal.kind': spec.kind }, () => this.performOnce(lease, spec));
  }

  private async performOnce<Request, Outcome>(lease: ReservationLease, spec: WriteSpec<Request, Outcome>): Promise<Outcome> {
    const { reservationId } = lease;
    const earlier = spec.earlier !== undefined ? spec.earlier : await this.load<Request, Outcome>(reservationId, spec.intentId);
    if (earlier && !mayResend(earlier.state)) {
      const settled = earlier.state === 'landed' ? earlier : await this.reconcileInline(earlier, 1, undefined, spec.alsoOnLanded);
      if (settled.state === 'landed') return settled.outcome as Outcome;
      if (isOpen(settled.state)) throw pending();
    }
    // Only lease holders begin intents, so what the caller settled under this lease is still settled.
    if (!spec.openSettled && (await this.settleOpen(lease))) throw pending();
    if (!lease.held()) throw tookOver();

    const now = this.clock.now();
    const prepared: WriteIntent<Request, Outcome> = {
      id: spec.intentId,
      kind: spec.kind,
      reservationId,
      state: 'prepared',
      request: spec.request,
      snapshot: await spec.snapshot(),
      context: spec.context,
      sentAt: now,
      updatedAt: now,
    };
    // Journal first: if this fails, nothing was sent. The same step reads the spacing left.
    const spacingLeft = await inSpan('journal record intent', { 'journal.kind': spec.kind }, () =>
      this.storeCall(() => this.writePrepared(prepared, now + RECHECK_AFTER_MS[0], lease.owner)),
    );
    if (spacingLeft === null) throw tookOver();
    if (spacingLeft > 0) await this.clock.sleep(spacingLeft);
    const intent = await inSpan('journal fence', { 'journal.kind': spec.kind }, () => this.fence(lease, prepared));
    let outcome: Outcome;
    try {
      outcome = await inSpan('journal send', { 'journal.kind': spec.kind }, spec.send);
    } catch (error) {
      if (spec.refused(error)) {
        await this.settle(intent, 'refused', { reason: error instanceof DomainError ? error.detail : 'refused' });
        throw error;
      }
      this.logger.warn(
        { reservationId, kind: spec.kind, intentId: intent.id, err: error },
        'an upstream write has no clear answer; reconciling before anything else is sent',
      );
      const unknown = await this.move(intent, 'unknown', {});
      // The platform may carry the request out long after our timeout: only its record can say it landed.
      const settled = await this.reconcileInline(unknown, RECONCILE_DELAYS_MS.length, error, spec.alsoOnLanded);
      if (settled.state === 'landed') return settled.outcome as Outcome;
      throw pending(error);
    }
    await this.settle(intent, 'landed', { outcome }, spec.alsoOnLanded?.(outcome) ?? []);
    return outcome;
  }

  /**
   * The fence step, one atomic Redis step right before the request leaves: only while this writer's
   * lease is still the one in Redis, and its intent is still the `prepared` one it wrote (not fenced
   * by a later lease holder), does the intent become `sending`. Otherwise nothing is sent.
   */
  private async fence<R, O>(lease: ReservationLease, prepared: WriteIntent<R, O>): Promise<WriteIntent<R, O>> {
    const writes = this.keys.reservationWrites(prepared.reservationId);
    const now = this.clock.now();
    const sending: WriteIntent<R, O> = { ...prepared, state: 'sending', sentAt: now, updatedAt: now };
    const [leaseHeld, stillPrepared] = await this.storeCall(() =>
      this.store.batch([
        { op: 'requireEquals', key: writes.lease, value: lease.owner },
        { op: 'requireEquals', key: writes.intent(prepared.id), value: JSON.stringify(prepared) },
        { op: 'set', key: writes.intent(prepared.id), value: JSON.stringify(sending), ttlMs: OPEN_TTL_MS },
      ]),
    );
    if (leaseHeld !== true || stillPrepared !== true) {
      this.logger.warn(
        { reservationId: prepared.reservationId, kind: prepared.kind, intentId: prepared.id },
        'a writer lost its lease before sending; its write was fenced and not sent',
      );
      throw tookOver();
    }
    this.metrics.journalIntents.inc({ kind: prepared.kind, state: 'sending' });
    return sending;
  }

  /**
   * Starts the write spacing on a reservation whose first write was journaled under another lease
   * (a reservation created from a quote): the next write to it waits like any other.
   */
  async startSpacing(reservationId: string): Promise<void> {
    if (this.leases.spacingMs <= 0) return;
    await this.store.set(this.keys.reservationWrites(reservationId).lastWrite, '1', { ttlMs: this.leases.spacingMs }).catch(() => false);
  }

  /** The sweep: one reconciliation of an open intent whose writer is gone (the caller holds its lease). */
  async reconcileDue(reservationId: string, intentId: string): Promise<IntentState | null> {
    const intent = await this.load(reservationId, intentId);
    if (!intent || !isOpen(intent.state)) {
      await this.store.indexRemove(this.keys.journal().due, dueMember(reservationId, intentId)).catch(() => undefined);
      return intent?.state ?? null;
    }
    return (await this.reconcileOnce(intent, true)).state;
  }

  /** Reads the upstream up to `reads` times (with the re-read delays) until the outcome is clear. */
  private async reconcileInline<R, O>(
    intent: WriteIntent<R, O>,
    reads: number,
    cause?: unknown,
    alsoOnLanded?: (outcome: O) => BatchStep[],
  ): Promise<WriteIntent<R, O>> {
    let current = intent;
    for (const delay of RECONCILE_DELAYS_MS.slice(0, reads)) {
      await this.clock.sleep(reads === 1 ? 0 : delay);
      current = await this.reconcileOnce(current, false, cause, alsoOnLanded);
      if (!isOpen(current.state)) return current;
    }
    return current;
  }

  private reconcileOnce<R, O>(
    intent: WriteIntent<R, O>,
    tellOthers: boolean,
    cause?: unknown,
    alsoOnLanded?: (outcome: O) => BatchStep[],
  ): Promise<WriteIntent<R, O>> {
    return inSpan('journal reconcile', { 'journal.kind': intent.kind }, () => this.reconcileRead(intent, tellOthers, cause, alsoOnLanded));
  }

  private async reconcileRead<R, O>(
    intent: WriteIntent<R, O>,
    tellOthers: boolean,
    cause?: unknown,
    alsoOnLanded?: (outcome: O) => BatchStep[],
  ): Promise<WriteIntent<R, O>> {
    const reconciler = this.reconcilers.get(intent.kind) as Reconciler<O> | undefined;
    let settled: WriteIntent<R, O>;
    if (intent.state === 'prepared') {
      // Its writer lost the lease before the fence step (the caller holds it now): it can never be sent.
      settled = await this.settle(intent, 'fenced', { reason: 'its writer lost the reservation before sending it' });
      this.logger.log(
        { reservationId: intent.reservationId, kind: intent.kind, intentId: intent.id },
        'a prepared write whose writer is gone was fenced',
      );
      if (tellOthers && reconciler) await reconciler.settled(settled);
      return settled;
    }
    let found: Reconciliation<O>;
    try {
      found = reconciler ? await reconciler.reconcile(intent) : { unknown: `no reconciler for ${intent.kind}` };
    } catch (error) {
      found = { unknown: error instanceof Error ? error.message : 'the upstream could not be read' };
    }
    // "Not there" while the write may still be carried out (the platform slower than our timeout) is no evidence.
    const horizon = intent.sentAt + this.settleMs;
    if ('notLanded' in found && this.clock.now() < horizon) found = { unknown: 'the write may still land until its settle horizon' };
    if ('landed' in found) {
      settled = await this.settle(intent, 'landed', { outcome: found.landed }, alsoOnLanded?.(found.landed) ?? []);
    } else if ('notLanded' in found) {
      settled = await this.settle(intent, 'not_landed', { reason: found.notLanded });
    } else {
      // The writer's own re-reads right after the write do not lengthen the sweep's wait.
      const checks = (intent.checks ?? 0) + (tellOthers ? 1 : 0);
      const next = { ...intent, state: 'unknown' as const, checks, updatedAt: this.clock.now() };
      const nextCheck = this.clock.now() + RECHECK_AFTER_MS[Math.min(Math.max(checks - 1, 0), RECHECK_AFTER_MS.length - 1)];
      // Looked at again right when the horizon passes, so that every write settles within it.
      const recheckAt = this.clock.now() < horizon ? Math.min(nextCheck, horizon) : nextCheck;
      if (intent.state === 'sending') this.metrics.journalIntents.inc({ kind: intent.kind, state: 'unknown' });
      await this.outbox.write(this.keys.reservationWrites(intent.reservationId).intent(intent.id), `intent ${intent.id} unknown`, () =>
        this.rewriteOpen(next, recheckAt),
      );
      this.logger.warn(
        { reservationId: intent.reservationId, kind: intent.kind, intentId: intent.id, reason: found.unknown, err: cause },
        'the outcome of an upstream write is still unknown',
      );
      return next;
    }
    this.logger.log(
      { reservationId: intent.reservationId, kind: intent.kind, intentId: intent.id, state: settled.state },
      'an upstream write without a clear answer was reconciled',
    );
    if (tellOthers && reconciler) await reconciler.settled(settled);
    return settled;
  }

  private async move<R, O>(intent: WriteIntent<R, O>, state: IntentState, fields: Partial<WriteIntent<R, O>>): Promise<WriteIntent<R, O>> {
    if (!canMove(intent.state, state)) throw new Error(`a write intent cannot move from ${intent.state} to ${state}`);
    const next = { ...intent, ...fields, state, updatedAt: this.clock.now() };
    this.metrics.journalIntents.inc({ kind: intent.kind, state });
    await this.outbox.write(this.keys.reservationWrites(intent.reservationId).intent(intent.id), `intent ${intent.id} ${state}`, () =>
      this.rewriteOpen(next, this.clock.now() + RECHECK_AFTER_MS[0]),
    );
    return next;
  }

  /**
   * Records a final state, clears the reservation's pointer and starts the write spacing, in one
   * step; kept and retried when Redis is down, because the upstream has acted.
   */
  private settle<R, O>(
    intent: WriteIntent<R, O>,
    state: IntentState,
    fields: Partial<WriteIntent<R, O>>,
    also: BatchStep[] = [],
  ): Promise<WriteIntent<R, O>> {
    return inSpan('journal settle', { 'journal.kind': intent.kind, 'journal.state': state }, () =>
      this.settleAs(intent, state, fields, also),
    );
  }

  private async settleAs<R, O>(
    intent: WriteIntent<R, O>,
    state: IntentState,
    fields: Partial<WriteIntent<R, O>>,
    also: BatchStep[] = [],
  ): Promise<WriteIntent<R, O>> {
    if (!canMove(intent.state, state)) throw new Error(`a write intent cannot move from ${intent.state} to ${state}`);
    const next = { ...intent, ...fields, state, updatedAt: this.clock.now() };
    this.metrics.journalIntents.inc({ kind: intent.kind, state });
    const writes = this.keys.reservationWrites(intent.reservationId);
    const spacing =
      this.leases.spacingMs > 0 ? [{ op: 'set' as const, key: writes.lastWrite, value: '1', ttlMs: this.leases.spacingMs }] : [];
    await this.outbox.write(writes.intent(intent.id), `intent ${intent.id} ${state}`, async () => {
      await this.store.batch([
        { op: 'set', key: writes.intent(intent.id), value: JSON.stringify(next), ttlMs: SETTLED_TTL_MS },
        { op: 'deleteIfEquals', key: writes.openIntent, value: intent.id },
        ...spacing,
        ...also,
      ]);
      await this.store.indexRemove(this.keys.journal().due, dueMember(intent.reservationId, intent.id));
    });
    return next;
  }

  /**
   * The `prepared` intent, the reservation's pointer to it, and when the sweep should look at it
   * (both at once: a `prepared` intent in the index is fenced by the sweep once its writer is gone),
   * only while `leaseOwner` still holds the lease: a writer frozen before this step must not point
   * the reservation at its intent over another writer's. Answers the write spacing left (ms) since
   * the reservation's last write, read in the same step, or null when the lease was not ours.
   */
  private async writePrepared(intent: WriteIntent, recheckAt: number, leaseOwner: string): Promise<number | null> {
    const writes = this.keys.reservationWrites(intent.reservationId);
    const [[held, , , spacingLeft]] = await Promise.all([
      this.store.batch([
        { op: 'requireEquals', key: writes.lease, value: leaseOwner },
        { op: 'set', key: writes.intent(intent.id), value: JSON.stringify(intent), ttlMs: OPEN_TTL_MS },
        { op: 'set', key: writes.openIntent, value: intent.id, ttlMs: OPEN_TTL_MS },
        { op: 'ttl', key: writes.lastWrite },
      ]),
      this.store.indexAdd(this.keys.journal().due, dueMember(intent.reservationId, intent.id), recheckAt),
    ]);
    if (held !== true) return null;
    return typeof spacingLeft === 'number' ? spacingLeft : 0;
  }

  /**
   * An open intent's new state and when the sweep should look at it again. The reservation's pointer
   * is left as it is: it was set when the intent was prepared, and only settling clears it.
   */
  private async rewriteOpen(intent: WriteIntent, recheckAt: number): Promise<void> {
    await Promise.all([
      this.store.set(this.keys.reservationWrites(intent.reservationId).intent(intent.id), JSON.stringify(intent), { ttlMs: OPEN_TTL_MS }),
      this.store.indexAdd(this.keys.journal().due, dueMember(intent.reservationId, intent.id), recheckAt),
    ]);
  }

  private async storeCall<R>(call: () => Promise<R>): Promise<R> {
    try {
      return await call();
    } catch (cause) {
      throw DomainError.storeUnavailable(cause);
    }
  }
}
