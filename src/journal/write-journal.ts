import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { Clock } from '../primitives/clock';
import { DomainError } from '../common/errors/domain-error';
import { AppConfig, ReplicaWaitSetting } from '../config/app-config';
import { RECONCILE_DELAYS_MS } from '../config/timing-rules';
import { MetricsService } from '../metrics/metrics.service';
import { UpstreamError } from '../upstream/upstream-error';
import {
  BatchAnswer,
  BatchStep,
  KeyValueStore,
  RecordRead,
  SlotAnswer,
  SlotRequest,
  slotAnswerOf,
  slotStep,
} from '../redis/key-value-store';
import { RedisKeys, TargetWrites } from '../redis/redis-keys';
import { StoreOutbox } from '../redis/store-outbox';
import { LeaseOptions, ReservationLease, ReservationLeases } from './reservation-leases';
import { IntentKind, IntentState, Reconciliation, WriteIntent, WriteTarget, canMove, isOpen, mayResend, readIntent } from './write-intent';
import { AnyWriteKind, WriteKind } from './write-kind';
import { WriteKinds } from './write-kinds';
import { inSpan } from '../common/telemetry/in-span';
import { StoreGeneration } from './store-generation';

/** Re-reads right after a write without a clear answer: the upstream shows a write after a moment (a request's length counts them). */
export { RECONCILE_DELAYS_MS } from '../config/timing-rules';
/** When the sweep looks at an intent again while it stays unknown. */
const RECHECK_AFTER_MS = [5_000, 15_000, 30_000, 60_000, 300_000];
/** Open intents are evidence until reconciled; settled ones answer retries of their key for a day. */
const OPEN_TTL_MS = 7 * 24 * 3_600_000;
const SETTLED_TTL_MS = 24 * 3_600_000;

/** The journal's id for one logical write of a kind (a key stable across retries: an Idempotency-Key, a 3-D Secure attempt). */
export function intentIdOf(kind: IntentKind, key: string): string {
  return RedisKeys.digest(`${kind}:${key}`);
}

/** What a caller already read of a write under the same lease (see WriteJournal.peek), so it is not read twice. */
export interface Standing<Request, Outcome> {
  /** This intent as the caller read it (null: it has none); undefined: read it in perform. */
  earlier?: WriteIntent<Request, Outcome> | null;
  /** The caller settled the target's open intent under the same lease just before. */
  openSettled?: boolean;
  /** This is the one resend of a repeatable write whose first send its record showed not done. */
  resent?: boolean;
}

/** A record a kind keeps beside its writes under the target's hash tag (a card on file, a quote's booking). */
export interface TargetRecord<T> {
  key(writes: TargetWrites): string;
  parse(raw: string): T;
}

type IntentOf<K> = K extends WriteKind<unknown, infer Request, infer Outcome> ? WriteIntent<Request, Outcome> : never;

/** What WriteJournal.peek read: the intents asked for, the target's open intent pointer, the kind's record. */
export interface Peeked<Writes extends readonly { kind: AnyWriteKind; key: string }[], T> {
  intents: { [I in keyof Writes]: IntentOf<Writes[I]['kind']> | null };
  openIntentId: string | null;
  record: T | null;
}

/** What a work does in the step that takes its lease besides the journal's reads (see leaseAndPeek). */
export interface AlongsideLease<S> {
  /** A record of another hash slot read in that step (the session the work is for). */
  read?: RecordRead<S>;
  /**
   * A limit's slot counted in that step, unless an intent of the writes asked for is there already (a
   * press that resumes its own write spends none) or, with `unlessRecord`, the kind's record is (a
   * reservation with a card on file); a denial stops nothing the work needs.
   */
  count?: SlotRequest;
  unlessRecord?: boolean;
}

/**
 * leaseAndPeek's reads, with what was asked for alongside: the record read, opened when the work asks
 * (null: none was asked for), and the count's answer (null: not counted).
 */
export type PeekedAlongside<Writes extends readonly { kind: AnyWriteKind; key: string }[], T, S = never> = Peeked<Writes, T> & {
  read: (() => Promise<S>) | null;
  counted: SlotAnswer | null;
  /** The store's generation as that step read it (HoldingOptions.storeFirst); undefined: not read. */
  generation?: BatchAnswer;
};

/** A write a work may send under its lease: its kind and its key. */
type WriteRef = { kind: AnyWriteKind; key: string };

/**
 * What a work holding a target's lease (WriteJournal.holding) has and may do: what was read in the
 * step that took the lease, the settling of another write left open, and its own writes, each
 * exactly once. An intent read with the lease is handed to its write, never read again.
 */
export interface HeldTarget<Writes extends readonly WriteRef[] = [], T = never, S = never> extends PeekedAlongside<Writes, T, S> {
  /** Another write's intent still open on the target after trying to settle it once; null when none is. */
  settleOpen(): Promise<WriteIntent | null>;
  /** The record asked for (`record`), read again: settling another write may have written it. */
  readRecord(): Promise<T | null>;
  /** Whether this intent's request may have left: its outcome is the journal's to answer, never a second send. */
  wasSent<I extends WriteIntent>(intent: I | null | undefined): intent is I;
  /** One write of `kind` under `key`: its outcome, `outcome_pending`, or the platform's refusal. */
  send<P, Rq, O>(kind: WriteKind<P, Rq, O>, key: string, payload: P): Promise<O>;
  /**
   * Whether a write could leave now, before the work does what it cannot take back (a card's
   * tokenization): 409 `step_in_progress` while writes are held after a store loss, 503
   * `store_unavailable` when the replicas asked for do not acknowledge. The send checks both again.
   */
  storeReady(): Promise<void>;
}

/** What `holding` reads in the step that takes the lease, and how it waits for the lease. */
export interface HoldingOptions<Writes extends readonly WriteRef[], T, S> {
  /** The intents of these writes (a retry's outcome answers it without a send). */
  peek?: Writes;
  /** A record the target keeps beside its writes (the card on file, a quote's booking). */
  record?: TargetRecord<T>;
  alongside?: AlongsideLease<S>;
  waitMs?: number;
  /** See LeaseOptions: the work's last step is one of its writes. */
  endsWithWrite?: boolean;
  /** See LeaseOptions: background work, whose writes keep the spacing. */
  spaced?: boolean;
  /** The store's generation is read in the step that takes the lease, for `storeReady` (no round trip of its own). */
  storeFirst?: boolean;
}

/** A read step's answer: the value, or null for a missing key (or a step that did not run). */
function textOf(answer: unknown): string | null {
  return typeof answer === 'string' ? answer : null;
}

/** A member of the due index names the target too (a reservation by its id, a quote as `quote:ID`): the intent lives under its hash tag. */
export function dueMember(target: WriteTarget, intentId: string): string {
  return `${'reservation' in target ? target.reservation : `quote:${target.quote}`} ${intentId}`;
}

export function fromDueMember(member: string): { target: WriteTarget; intentId: string } | null {
  const [named, intentId] = member.split(' ');
  if (!named || !intentId) return null;
  return { target: named.startsWith('quote:') ? { quote: named.slice('quote:'.length) } : { reservation: named }, intentId };
}

function tookOver(): DomainError {
  return new DomainError(
    'step_in_progress',
    'Another payment step for this reservation took over; nothing was sent. Try again in a moment.',
    {
      retryAfterSeconds: 1,
    },
  );
}

function unreplicated(): DomainError {
  return new DomainError('store_unavailable', 'Shared state could not keep this step safely; nothing was sent. Try again shortly.', {
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
 * The one door for upstream writes (docs/product-spec.md §6, docs/write-journal.md): an intent in
 * Redis before the request leaves, its outcome after, `unknown` until its kind's re-read finds it
 * on the platform. While an intent on a target is open, no other write on it is sent. Callers hold
 * the target's lease around every call.
 */
@Injectable()
export class WriteJournal {
  private readonly logger = new Logger('WriteJournal');
  /** WRITE_SETTLE_SECONDS: until this long after its send, a write may still land (docs/write-journal.md). */
  readonly settleMs: number;
  /** REDIS_WAIT_REPLICAS and REDIS_WAIT_TIMEOUT_MS: acknowledgements of an intent asked for before its send. */
  private readonly replicaAcks: { replicas: ReplicaWaitSetting; timeoutMs: number };

  constructor(
    @Inject(KeyValueStore) private readonly store: KeyValueStore,
    private readonly keys: RedisKeys,
    private readonly leases: ReservationLeases,
    private readonly outbox: StoreOutbox,
    private readonly clock: Clock,
    private readonly metrics: MetricsService,
    config: ConfigService<AppConfig, true>,
    private readonly kinds: WriteKinds,
    private readonly generation: StoreGeneration,
  ) {
    this.settleMs = config.get('reservationWrites', { infer: true }).settleMs;
    const redis = config.get('redis', { infer: true });
    this.replicaAcks = { replicas: redis.waitReplicas, timeoutMs: redis.waitTimeoutMs };
  }

  /**
   * One write of `kind` under `key` on `target`, exactly once: takes the target's lease, settles any
   * other write left open on it, fences, sends, records, and answers the outcome (or
   * `outcome_pending`, or the platform's refusal). `waitMs`: how long to wait for another holder.
   */
  write<P, Rq, O>(
    target: WriteTarget,
    kind: WriteKind<P, Rq, O>,
    key: string,
    payload: P,
    options: Pick<LeaseOptions, 'waitMs' | 'spaced'> = {},
  ): Promise<O> {
    return this.holding(target, (held) => held.send(kind, key, payload), options);
  }

  /**
   * Runs `work` holding the target's lease, with what `options` asks for read in the step that
   * takes it (one round trip), for a feature whose writes depend on what it reads first (a card's
   * session, a booking's record) or that sends several. Its writes go through `held.send`.
   */
  holding<const Writes extends readonly WriteRef[] = [], R = unknown, T = never, S = never>(
    target: WriteTarget,
    work: (held: HeldTarget<Writes, T, S>) => Promise<R>,
    options: HoldingOptions<Writes, T, S> = {},
  ): Promise<R> {
    const { peek, record, alongside, storeFirst, ...leaseOptions } = options;
    if (!peek && !record && !alongside && !storeFirst) {
      const nothingRead = {
        intents: [] as unknown as Peeked<Writes, T>['intents'],
        openIntentId: null,
        record: null,
        read: null,
        counted: null,
      };
      return this.leases.withLease(
        target,
        (lease) => work(this.held(lease, [] as unknown as Writes, nothingRead, record, false)),
        leaseOptions,
      );
    }
    const writes = (peek ?? []) as unknown as Writes;
    return this.leaseAndPeek(target, writes, record, (lease, peeked) => work(this.held(lease, writes, peeked, record, true)), {
      ...leaseOptions,
      ...(alongside ? { alongside } : {}),
      ...(storeFirst ? { storeFirst } : {}),
    });
  }

  private held<const Writes extends readonly WriteRef[], T, S>(
    lease: ReservationLease,
    writes: Writes,
    peeked: PeekedAlongside<Writes, T, S>,
    record: TargetRecord<T> | undefined,
    pointerRead: boolean,
  ): HeldTarget<Writes, T, S> {
    const ownIds = writes.map(({ kind, key }) => intentIdOf(kind.name, key));
    // Settled: no pointer, or one of this work's own writes (its intent, handed to its send, decides).
    let settled = pointerRead && (peeked.openIntentId === null || ownIds.includes(peeked.openIntentId));
    let pointer: string | null | undefined = pointerRead ? peeked.openIntentId : undefined;
    const handed = new Set<number>();
    return {
      ...peeked,
      settleOpen: async () => {
        const open = await this.settleOpen(lease, pointer);
        pointer = undefined;
        if (!open) settled = true;
        return open;
      },
      readRecord: async () => (record ? (await this.peek(lease.target, [], record)).record : null),
      wasSent: <I extends WriteIntent>(intent: I | null | undefined): intent is I => !!intent && !mayResend(intent.state),
      send: <P, Rq, O>(kind: WriteKind<P, Rq, O>, key: string, payload: P) => {
        const index = writes.findIndex((write) => write.kind === kind && write.key === key);
        const earlier = index >= 0 && !handed.has(index) ? (peeked.intents[index] as WriteIntent<Rq, O> | null) : undefined;
        if (index >= 0) handed.add(index);
        return this.perform(lease, kind, key, payload, { ...(earlier !== undefined ? { earlier } : {}), openSettled: settled });
      },
      storeReady: async () => {
        const [generation] =
          peeked.generation !== undefined ? [peeked.generation] : await this.storeCall(() => this.store.batch([this.generation.step()]));
        await this.generation.admit(generation).catch((error: unknown) => {
          throw error instanceof DomainError ? error : DomainError.storeUnavailable(error);
        });
        const short = await this.replicasShort().catch((error: unknown) => {
          throw DomainError.storeUnavailable(error);
        });
        if (short !== null) throw unreplicated();
      },
    };
  }

  /** The intent of this kind and key on the target, if any. */
  load<K extends AnyWriteKind>(target: WriteTarget, kind: K, key: string): Promise<IntentOf<K> | null> {
    return this.loadById(target, intentIdOf(kind.name, key)) as Promise<IntentOf<K> | null>;
  }

  /** The target's open intent of this kind, as the journal holds it now (its pointer, then the intent); null when none. */
  async openIntent(target: WriteTarget, kind: AnyWriteKind): Promise<WriteIntent | null> {
    const { openIntentId } = await this.peek(target, []);
    if (!openIntentId) return null;
    const intent = await this.loadById(target, openIntentId);
    return intent && intent.kind === kind.name && isOpen(intent.state) ? intent : null;
  }

  /**
   * In one round trip: the intents of these kinds and keys, the target's open intent pointer, and
   * the record a kind keeps beside its writes (e.g. the card on file), when asked for.
   */
  async peek<const Writes extends readonly { kind: AnyWriteKind; key: string }[], T = never>(
    target: WriteTarget,
    writes: Writes,
    record?: TargetRecord<T>,
  ): Promise<Peeked<Writes, T>> {
    const read = this.peekKeys(target, writes, record);
    const answers = await this.storeCall(() => this.store.batch(read.map((key) => ({ op: 'get' as const, key }))));
    return this.peeked(writes, record, answers);
  }

  /**
   * Runs `work` holding the target's lease, with what `peek` and `alongside` ask for read in the
   * step that takes it, one round trip for all. On one Redis that is one atomic script; on a Redis
   * Cluster the other slot's read and the count follow the lease as steps of their own.
   * `endsWithWrite`: see LeaseOptions.
   */
  leaseAndPeek<const Writes extends readonly { kind: AnyWriteKind; key: string }[], T, R, S = never>(
    target: WriteTarget,
    writes: Writes,
    record: TargetRecord<T> | undefined,
    work: (lease: ReservationLease, peeked: PeekedAlongside<Writes, T, S>) => Promise<R>,
    options: Omit<LeaseOptions, 'alongside'> & { alongside?: AlongsideLease<S>; storeFirst?: boolean } = {},
  ): Promise<R> {
    const { alongside = {}, storeFirst, ...leaseOptions } = options;
    const { read } = alongside;
    const reads = this.peekKeys(target, writes, record);
    const steps: BatchStep[] = reads.map((key) => ({ op: 'get', key }));
    // The reads first: a count that is denied or skipped stops the steps after it.
    if (alongside.read !== undefined) steps.push({ op: 'get', key: alongside.read.key, otherSlot: true });
    const generationAt = steps.length;
    if (storeFirst) steps.push(this.generation.step());
    if (alongside.count) {
      const settling = [...reads.slice(0, writes.length), ...(alongside.unlessRecord && record ? [reads[writes.length + 1]] : [])];
      steps.push(slotStep(alongside.count, settling));
    }
    return this.leases.withLease(
      target,
      (lease, answers) => {
        const counted = alongside.count ? answers[answers.length - 1] : undefined;
        return work(lease, {
          ...this.peeked(writes, record, answers),
          read: read ? () => read.open(textOf(answers[reads.length])) : null,
          counted: counted === undefined || counted === false ? null : slotAnswerOf(counted),
          ...(storeFirst ? { generation: answers[generationAt] } : {}),
        });
      },
      { ...leaseOptions, alongside: steps },
    );
  }

  private peekKeys<T>(target: WriteTarget, writes: readonly { kind: AnyWriteKind; key: string }[], record?: TargetRecord<T>): string[] {
    const keys = this.leases.writesOf(target);
    const read = [...writes.map(({ kind, key }) => keys.intent(intentIdOf(kind.name, key))), keys.openIntent];
    if (record) read.push(record.key(keys));
    return read;
  }

  private peeked<const Writes extends readonly { kind: AnyWriteKind; key: string }[], T>(
    writes: Writes,
    record: TargetRecord<T> | undefined,
    answers: readonly unknown[],
  ): Peeked<Writes, T> {
    const intents = writes.map((_, index) => {
      const raw = textOf(answers[index]);
      return raw ? readIntent(raw) : null;
    });
    const recorded = record ? textOf(answers[writes.length + 1]) : null;
    return {
      intents: intents as Peeked<Writes, T>['intents'],
      openIntentId: textOf(answers[writes.length]),
      record: recorded && record ? record.parse(recorded) : null,
    };
  }

  /**
   * The target's open intent after trying to settle it once; null when none is open.
   * `openIntentId`: the pointer, when the caller read it already (undefined: read it here).
   */
  async settleOpen(lease: ReservationLease, openIntentId?: string | null): Promise<WriteIntent | null> {
    const openId =
      openIntentId !== undefined ? openIntentId : await this.storeCall(() => this.store.get(this.leases.writesOf(lease.target).openIntent));
    if (!openId) return null;
    const open = await this.loadById(lease.target, openId);
    if (!open || !isOpen(open.state)) return null;
    const settled = await this.reconcileOnce(open, true);
    return isOpen(settled.state) ? settled : null;
  }

  /**
   * Performs one write of `kind` exactly once: an earlier intent with the same key is answered from
   * the journal (or reconciled), never sent again unless it surely did not happen. Throws the
   * send's own error for a refusal, and `outcome_pending` whenever the request may have left
   * without a clear answer.
   */
  perform<Payload, Request, Outcome>(
    lease: ReservationLease,
    kind: WriteKind<Payload, Request, Outcome>,
    key: string,
    payload: Payload,
    standing: Standing<Request, Outcome> = {},
  ): Promise<Outcome> {
    return inSpan(`journal ${kind.name}`, { 'journal.kind': kind.name }, () => this.performOnce(lease, kind, key, payload, standing));
  }

  private async performOnce<Payload, Request, Outcome>(
    lease: ReservationLease,
    kind: WriteKind<Payload, Request, Outcome>,
    key: string,
    payload: Payload,
    standing: Standing<Request, Outcome>,
  ): Promise<Outcome> {
    const { target } = lease;
    const intentId = intentIdOf(kind.name, key);
    let { earlier } = standing;
    let openIntentId: string | null | undefined;
    if (earlier === undefined) {
      // This intent and the target's pointer, in one read.
      const read = await this.peek(target, [{ kind: kind as AnyWriteKind, key }]);
      earlier = read.intents[0] as WriteIntent<Request, Outcome> | null;
      openIntentId = read.openIntentId;
    }
    if (earlier && !mayResend(earlier.state)) {
      const settled = earlier.state === 'landed' ? earlier : await this.reconcileInline(earlier, 1);
      if (settled.state === 'landed') return settled.outcome as Outcome;
      if (isOpen(settled.state)) throw pending();
    }
    // Only lease holders begin intents, so what the caller settled under this lease is still settled.
    if (!standing.openSettled && (await this.settleOpen(lease, openIntentId))) throw pending();
    if (!lease.held()) throw tookOver();

    const now = this.clock.now();
    const snapshot = await kind.snapshot(target, payload);
    const prepared: WriteIntent<Request, Outcome> = {
      id: intentId,
      kind: kind.name,
      target,
      state: 'prepared',
      ...kind.describe(target, payload),
      snapshot,
      sentAt: now,
      updatedAt: now,
    };
    // Journal first: if this fails, nothing was sent. With no spacing to keep, the same step is the fence step.
    const recorded = await inSpan('journal record intent', { 'journal.kind': kind.name }, async (span) => {
      const step = await this.storeCall(() => this.prepare(prepared, now + RECHECK_AFTER_MS[0], lease.owner, lease.spaced === true));
      span.setAttribute('journal.fenced', step !== 'lost' && step.step === 'sending');
      return step;
    });
    if (recorded === 'lost') throw tookOver();
    let intent: WriteIntent<Request, Outcome>;
    let generation: unknown;
    if (recorded.step === 'sending') {
      this.metrics.journalIntents.inc({ kind: prepared.kind, state: 'sending' });
      intent = { ...prepared, state: 'sending' };
      generation = recorded.generation;
    } else {
      await this.clock.sleep(recorded.spacingLeftMs);
      [intent, generation] = await inSpan('journal fence', { 'journal.kind': kind.name }, () => this.fence(lease, prepared));
    }
    await this.beforeSend(intent, generation);
    let outcome: Outcome;
    try {
      outcome = await inSpan('journal send', { 'journal.kind': kind.name }, () => kind.send(target, payload, snapshot));
    } catch (error) {
      if (kind.refusedBeforeEffect(error)) {
        // Never sent (the budget refused the slot, the deadline passed): nothing to remember, so nothing is kept.
        if (error instanceof UpstreamError && !error.maybeSent) await this.discard(intent);
        else await this.settle(intent, 'refused', { reason: error instanceof DomainError ? error.detail : 'refused' });
        throw error;
      }
      this.logger.warn(
        { target, kind: kind.name, intentId: intent.id, err: error },
        'an upstream write has no clear answer; reconciling before anything else is sent',
      );
      const unknown = await this.move(intent, 'unknown', {});
      // The platform may carry the request out long after our timeout: only its record can say it landed.
      const settled = await this.reconcileInline(unknown, RECONCILE_DELAYS_MS.length, error);
      if (settled.state === 'landed') return settled.outcome as Outcome;
      // A repeatable write its record shows not done is sent again at once (once): a late landing
      // of the first changes nothing, so the guest does not wait for the sweep's next try.
      if (settled.state === 'not_landed' && kind.repeatable && !standing.resent) {
        return this.performOnce(lease, kind, key, payload, { earlier: settled, openSettled: true, resent: true });
      }
      throw pending(error);
    }
    await this.settle(intent, 'landed', { outcome }, lease.endsWithWrite ? lease : undefined);
    return outcome;
  }

  /**
   * The last checks before a request leaves, on an intent already `sending` in Redis: the store
   * still holds this replica's journal (StoreGeneration), and, when asked for, replicas acknowledged
   * the intent (Redis WAIT), so a failover cannot drop it. Either failing sends nothing and removes
   * the intent; the answer says to try again.
   */
  private async beforeSend(intent: WriteIntent, generation: unknown): Promise<void> {
    try {
      await this.generation.admit(generation);
    } catch (error) {
      await this.discard(intent);
      throw error instanceof DomainError ? error : DomainError.storeUnavailable(error);
    }
    let acknowledged: number | null;
    try {
      acknowledged = await this.replicasShort();
    } catch (error) {
      await this.discard(intent);
      throw DomainError.storeUnavailable(error);
    }
    if (acknowledged === null) return;
    this.metrics.intentsUnreplicated.inc({});
    this.logger.warn(
      { target: intent.target, kind: intent.kind, intentId: intent.id, acknowledged, replicas: this.replicaAcks.replicas },
      'Redis replicas did not acknowledge a write intent in time; the write was not sent',
    );
    await this.discard(intent);
    throw unreplicated();
  }

  /**
   * Null when the replicas REDIS_WAIT_REPLICAS asks for acknowledged this connection's writes in
   * time, else how many did; throws when the replicas cannot be counted (nothing may be sent then).
   */
  private async replicasShort(): Promise<number | null> {
    const replicas = await this.replicasToWaitFor();
    if (replicas === 0) return null;
    const acknowledged = await this.store.replicated(replicas, this.replicaAcks.timeoutMs).catch(() => 0);
    return acknowledged >= replicas ? null : acknowledged;
  }

  /**
   * REDIS_WAIT_REPLICAS: `auto` waits for one replica where the primary had any when the store last
   * connected, so the default keeps an intent through a failover; `off` waits for none.
   */
  private async replicasToWaitFor(): Promise<number> {
    const { replicas } = this.replicaAcks;
    if (replicas === 'off') return 0;
    if (replicas !== 'auto') return replicas;
    return (await this.store.replicasSeen()) > 0 ? 1 : 0;
  }

  /**
   * The fence step, one atomic Redis step right before the request leaves: only while this writer's
   * lease is still the one in Redis, and its intent is still the `prepared` one it wrote (not fenced
   * by a later lease holder), does the intent become `sending`. Otherwise nothing is sent.
   */
  private async fence<R, O>(lease: ReservationLease, prepared: WriteIntent<R, O>): Promise<[WriteIntent<R, O>, unknown]> {
    const writes = this.leases.writesOf(prepared.target);
    const now = this.clock.now();
    const sending: WriteIntent<R, O> = { ...prepared, state: 'sending', sentAt: now, updatedAt: now };
    const [leaseHeld, stillPrepared, , generation] = await this.storeCall(() =>
      this.store.batch([
        { op: 'requireEquals', key: writes.lease, value: lease.owner },
        { op: 'requireEquals', key: writes.intent(prepared.id), value: JSON.stringify(prepared) },
        { op: 'set', key: writes.intent(prepared.id), value: JSON.stringify(sending), ttlMs: OPEN_TTL_MS },
        this.generation.step(),
      ]),
    );
    if (leaseHeld !== true || stillPrepared !== true) {
      this.logger.warn(
        { target: prepared.target, kind: prepared.kind, intentId: prepared.id },
        'a writer lost its lease before sending; its write was fenced and not sent',
      );
      throw tookOver();
    }
    this.metrics.journalIntents.inc({ kind: prepared.kind, state: 'sending' });
    return [sending, generation];
  }

  /**
   * Starts the write spacing on a reservation whose first write was journaled under another target
   * (a reservation created from a quote): a background write to it waits like after any other.
   */
  async startSpacing(target: WriteTarget): Promise<void> {
    if (this.leases.spacingMs <= 0) return;
    await this.store.set(this.leases.writesOf(target).lastWrite, '1', { ttlMs: this.leases.spacingMs }).catch(() => false);
  }

  /** The sweep: one reconciliation of an open intent whose writer is gone (the caller holds its target's lease). */
  async reconcileDue(target: WriteTarget, intentId: string): Promise<IntentState | null> {
    const intent = await this.loadById(target, intentId);
    if (!intent || !isOpen(intent.state)) {
      await this.store.indexRemove(this.keys.journal().due, dueMember(target, intentId)).catch(() => undefined);
      return intent?.state ?? null;
    }
    return (await this.reconcileOnce(intent, true)).state;
  }

  private async loadById(target: WriteTarget, intentId: string): Promise<WriteIntent | null> {
    const raw = await this.storeCall(() => this.store.get(this.leases.writesOf(target).intent(intentId)));
    return raw ? readIntent(raw) : null;
  }

  private kindOf<R, O>(intent: WriteIntent<R, O>): WriteKind<unknown, R, O> | undefined {
    return this.kinds.of(intent.kind) as WriteKind<unknown, R, O> | undefined;
  }

  /** Reads the upstream up to `reads` times (with the re-read delays) until the outcome is clear. */
  private async reconcileInline<R, O>(intent: WriteIntent<R, O>, reads: number, cause?: unknown): Promise<WriteIntent<R, O>> {
    let current = intent;
    for (const delay of RECONCILE_DELAYS_MS.slice(0, reads)) {
      await this.clock.sleep(reads === 1 ? 0 : delay);
      current = await this.reconcileOnce(current, false, cause);
      if (!isOpen(current.state)) return current;
    }
    return current;
  }

  private reconcileOnce<R, O>(intent: WriteIntent<R, O>, tellOthers: boolean, cause?: unknown): Promise<WriteIntent<R, O>> {
    return inSpan('journal reconcile', { 'journal.kind': intent.kind }, () => this.reconcileRead(intent, tellOthers, cause));
  }

  private async reconcileRead<R, O>(intent: WriteIntent<R, O>, tellOthers: boolean, cause?: unknown): Promise<WriteIntent<R, O>> {
    const kind = this.kindOf(intent);
    let settled: WriteIntent<R, O>;
    if (intent.state === 'prepared') {
      // Its writer lost the lease before the fence step (the caller holds it now): it can never be sent.
      settled = await this.settle(intent, 'fenced', { reason: 'its writer lost the reservation before sending it' });
      this.logger.log(
        { target: intent.target, kind: intent.kind, intentId: intent.id },
        'a prepared write whose writer is gone was fenced',
      );
      if (tellOthers && kind) await kind.settledElsewhere(settled);
      return settled;
    }
    let found: Reconciliation<O>;
    try {
      found = kind ? await kind.find(intent) : { unknown: `no write kind ${intent.kind}` };
    } catch (error) {
      found = { unknown: error instanceof Error ? error.message : 'the upstream could not be read' };
    }
    // "Not there" while the write may still be carried out (the platform slower than our timeout) is no
    // evidence, unless a late landing after a second send changes nothing (a repeatable kind).
    const horizon = intent.sentAt + this.settleMs;
    if ('notLanded' in found && this.clock.now() < horizon && !kind?.repeatable)
      found = { unknown: 'the write may still land until its settle horizon' };
    if ('landed' in found) {
      settled = await this.settle(intent, 'landed', { outcome: found.landed });
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
      await this.outbox.write(this.leases.writesOf(intent.target).intent(intent.id), `intent ${intent.id} unknown`, () =>
        this.rewriteOpen(next, recheckAt),
      );
      this.logger.warn(
        { target: intent.target, kind: intent.kind, intentId: intent.id, reason: found.unknown, err: cause },
        'the outcome of an upstream write is still unknown',
      );
      return next;
    }
    this.logger.log(
      { target: intent.target, kind: intent.kind, intentId: intent.id, state: settled.state },
      'an upstream write without a clear answer was reconciled',
    );
    if (tellOthers && kind) await kind.settledElsewhere(settled);
    return settled;
  }

  private async move<R, O>(intent: WriteIntent<R, O>, state: IntentState, fields: Partial<WriteIntent<R, O>>): Promise<WriteIntent<R, O>> {
    if (!canMove(intent.state, state)) throw new Error(`a write intent cannot move from ${intent.state} to ${state}`);
    const next = { ...intent, ...fields, state, updatedAt: this.clock.now() };
    this.metrics.journalIntents.inc({ kind: intent.kind, state });
    await this.outbox.write(this.leases.writesOf(intent.target).intent(intent.id), `intent ${intent.id} ${state}`, () =>
      this.rewriteOpen(next, this.clock.now() + RECHECK_AFTER_MS[0]),
    );
    return next;
  }

  /**
   * Records a final state, clears the target's pointer, starts the write spacing and, when it landed,
   * writes what its kind records beside it, in one step; kept and retried when Redis is down,
   * because the upstream has acted.
   */
  private settle<R, O>(
    intent: WriteIntent<R, O>,
    state: IntentState,
    fields: Partial<WriteIntent<R, O>>,
    ending?: ReservationLease,
  ): Promise<WriteIntent<R, O>> {
    return inSpan('journal settle', { 'journal.kind': intent.kind, 'journal.state': state }, () =>
      this.settleAs(intent, state, fields, ending),
    );
  }

  /** `ending`: a lease whose work ends with this write (LeaseOptions.endsWithWrite), released in the same step. */
  private async settleAs<R, O>(
    intent: WriteIntent<R, O>,
    state: IntentState,
    fields: Partial<WriteIntent<R, O>>,
    ending?: ReservationLease,
  ): Promise<WriteIntent<R, O>> {
    if (!canMove(intent.state, state)) throw new Error(`a write intent cannot move from ${intent.state} to ${state}`);
    const next = { ...intent, ...fields, state, updatedAt: this.clock.now() };
    this.metrics.journalIntents.inc({ kind: intent.kind, state });
    const writes = this.leases.writesOf(intent.target);
    const spacing =
      this.leases.spacingMs > 0 ? [{ op: 'set' as const, key: writes.lastWrite, value: '1', ttlMs: this.leases.spacingMs }] : [];
    const kind = this.kindOf(intent);
    const also: BatchStep[] = state === 'landed' && kind ? kind.alongside(next, next.outcome as O) : [];
    const release: BatchStep[] = ending ? [{ op: 'deleteIfEquals', key: writes.lease, value: ending.owner }] : [];
    const written = await this.outbox.write(writes.intent(intent.id), `intent ${intent.id} ${state}`, async () => {
      await this.store.batch([
        { op: 'set', key: writes.intent(intent.id), value: JSON.stringify(next), ttlMs: SETTLED_TTL_MS },
        { op: 'deleteIfEquals', key: writes.openIntent, value: intent.id },
        ...spacing,
        ...also,
        { op: 'indexRemove', key: this.keys.journal().due, member: dueMember(intent.target, intent.id) },
        ...release,
      ]);
    });
    if (written) ending?.endsWithWrite?.released();
    return next;
  }

  /**
   * An intent whose request never left: removed with its pointer and its sweep entry in one step,
   * so a refusal leaves no record (a retry starts afresh, as after a refusal). A store that fails
   * here leaves it to the sweep, which finds nothing on the platform and settles it not landed.
   */
  private async discard(intent: WriteIntent): Promise<void> {
    const writes = this.leases.writesOf(intent.target);
    this.metrics.journalIntents.inc({ kind: intent.kind, state: 'refused' });
    await this.store
      .batch([
        { op: 'delete', key: writes.intent(intent.id) },
        { op: 'deleteIfEquals', key: writes.openIntent, value: intent.id },
        { op: 'indexRemove', key: this.keys.journal().due, member: dueMember(intent.target, intent.id) },
      ])
      .catch((error: unknown) =>
        this.logger.warn({ err: error, intentId: intent.id }, 'an intent never sent could not be removed; the sweep settles it'),
      );
  }

  /**
   * One atomic step, only while `leaseOwner` holds the lease, so a frozen writer cannot point the
   * target at its intent over another's: the `prepared` intent, its pointer and index entry, then
   * `sending` (the fence step) unless a `spaced` write finds spacing left, the generation read last.
   * Answers `lost`, `sending` with the generation, or the spacing left.
   */
  private async prepare(
    intent: WriteIntent,
    recheckAt: number,
    leaseOwner: string,
    spaced: boolean,
  ): Promise<'lost' | { step: 'sending'; generation: unknown } | { step: 'spacing'; spacingLeftMs: number }> {
    const writes = this.leases.writesOf(intent.target);
    const sending: WriteIntent = { ...intent, state: 'sending' };
    const spacing: BatchStep[] = spaced
      ? [
          { op: 'ttl', key: writes.lastWrite },
          { op: 'requireAbsent', key: writes.lastWrite },
        ]
      : [];
    const answers = await this.store.batch([
      { op: 'requireEquals', key: writes.lease, value: leaseOwner },
      { op: 'set', key: writes.intent(intent.id), value: JSON.stringify(intent), ttlMs: OPEN_TTL_MS },
      { op: 'set', key: writes.openIntent, value: intent.id, ttlMs: OPEN_TTL_MS },
      { op: 'indexAdd', key: this.keys.journal().due, member: dueMember(intent.target, intent.id), score: recheckAt },
      ...spacing,
      { op: 'set', key: writes.intent(intent.id), value: JSON.stringify(sending), ttlMs: OPEN_TTL_MS },
      // Last: on a Redis Cluster a step of another slot runs after the rest, and only when every guard held.
      this.generation.step(),
    ]);
    const [spacingLeft, spacedOut] = spaced ? answers.slice(4, 6) : [null, true];
    const generation = answers[answers.length - 1];
    if (answers[0] !== true) return 'lost';
    if (spacedOut === true) return { step: 'sending', generation };
    return { step: 'spacing', spacingLeftMs: typeof spacingLeft === 'number' ? spacingLeft : this.leases.spacingMs };
  }

  /**
   * An open intent's new state and next sweep time, and the target's pointer to it when the pointer
   * is gone (a Redis that lost it, or an outcome kept in memory while Redis was down), so later
   * writers on the target see it. A pointer to another intent is left: only settling clears a
   * pointer.
   */
  private async rewriteOpen(intent: WriteIntent, recheckAt: number): Promise<void> {
    const writes = this.leases.writesOf(intent.target);
    await this.store.batch([
      { op: 'set', key: writes.intent(intent.id), value: JSON.stringify(intent), ttlMs: OPEN_TTL_MS },
      { op: 'indexAdd', key: this.keys.journal().due, member: dueMember(intent.target, intent.id), score: recheckAt },
      { op: 'set', key: writes.openIntent, value: intent.id, ttlMs: OPEN_TTL_MS, ifAbsent: true },
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
