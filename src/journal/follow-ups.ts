import { Inject, Injectable, Logger, OnModuleInit, Optional } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { Clock } from '../primitives/clock';
import { MetricsService } from '../metrics/metrics.service';
import { BatchStep, KeyValueStore } from '../redis/key-value-store';
import { RedisKeys } from '../redis/redis-keys';
import { setBounded } from '../primitives/bounded-map';

/**
 * A write that must follow another once it landed (a paid booking's confirmation, the cancel of a
 * reservation no card can follow), named by the room that carries it out (`@FollowUps.carriedOutBy`).
 */
export type FollowUpKind = string;

const FOLLOW_UP_HANDLER = Symbol('follow-up handler');
const KIND_NAME = /^[a-z][a-z-]{0,39}$/;

/** One write to follow: what, on which reservation, for which session (by its ref, never its id). */
export interface FollowUp {
  kind: FollowUpKind;
  reservationId: string;
  sessionRef: string;
  /** The listing whose unpaid hold it ends (cancel-orphan). */
  listingId?: string;
  /** The network, by digest, whose booking hold it ends (cancel-orphan): its count gives the slot back. */
  network?: string;
}

/** `done`: it landed (or was not needed); `refused`: the platform said no for good; `retry`: not now. */
export type FollowUpOutcome = 'done' | 'refused' | 'retry';
export type FollowUpHandler = (followUp: FollowUp) => Promise<FollowUpOutcome>;

/** The request that caused it usually does it at once; the sweep looks only after this. */
export const FOLLOW_UP_GRACE_MS = 10_000;
/** A follow-up tried again waits a quarter of its age, from 15 s to 15 min: a stuck one costs a few platform reads an hour, not 240. */
const RETRY_AFTER_AT_LEAST_MS = 15_000;
const RETRY_AFTER_AT_MOST_MS = 15 * 60_000;
/** A follow-up still not carried out a day after it was recorded is given up to the operator, as a refused one is. */
const GIVEN_UP_AFTER_MS = 24 * 3_600_000;
/** Follow-ups a replica keeps in memory besides Redis (see remember): at most this many, for at most this long. */
const REMEMBERED_AT_MOST = 10_000;
const REMEMBERED_FOR_MS = 24 * 3_600_000;

function memberOf({ kind, reservationId, sessionRef, listingId, network }: FollowUp): string {
  const words: (string | null)[] = [kind, reservationId, sessionRef];
  if (listingId !== undefined || network !== undefined) words.push(listingId ?? null);
  if (network !== undefined) words.push(network);
  return JSON.stringify(words);
}

function followUpOf(member: string): FollowUp | null {
  try {
    const [kind, reservationId, sessionRef, listingId, network] = JSON.parse(member) as unknown[];
    if (typeof kind !== 'string' || !KIND_NAME.test(kind) || typeof reservationId !== 'string' || typeof sessionRef !== 'string')
      return null;
    return {
      kind,
      reservationId,
      sessionRef,
      ...(typeof listingId === 'string' ? { listingId } : {}),
      ...(typeof network === 'string' ? { network } : {}),
    };
  } catch {
    return null;
  }
}

/**
 * Writes that must follow a landed one (docs/write-journal.md, "Follow-ups"), kept in Redis from
 * the step that records the first write landed, never only in a replica's memory, so the sweep on
 * any replica finishes what the causing request did not. Each is a journaled write of its own, so
 * doing it twice sends it once.
 */
@Injectable()
export class FollowUps implements OnModuleInit {
  private readonly logger = new Logger('FollowUps');
  private readonly handlers = new Map<FollowUpKind, FollowUpHandler>();
  /**
   * When this replica first tried each follow-up still due (the one it recorded: when it recorded
   * it): the age its waits and its giving up are counted from. Another replica taking over the
   * sweep counts from its own first try, so a stuck follow-up is given up a day after at the latest.
   */
  private readonly tried = new Map<string, number>();
  /** Kinds met with no handler, told once each: their follow-ups wait until a replica that has one takes them. */
  private readonly unhandled = new Set<FollowUpKind>();
  private readonly due: string;
  /**
   * The follow-ups this replica recorded, until they end: a Redis that lost `follow-ups:due` (back
   * empty, or a failover that dropped the latest writes) does not lose them while this replica
   * lives, since each replica carries out its own when they fall due (runRemembered).
   */
  private readonly remembered = new Map<string, { followUp: FollowUp; dueAt: number; since: number }>();

  constructor(
    @Inject(KeyValueStore) private readonly store: KeyValueStore,
    keys: RedisKeys,
    private readonly clock: Clock,
    private readonly metrics: MetricsService,
    @Optional() private readonly discovery?: DiscoveryService,
    @Optional() private readonly scanner?: MetadataScanner,
  ) {
    this.due = keys.followUps().due;
  }

  /**
   * Marks a method as the one that carries out follow-ups of `kind` (its argument: the FollowUp, its
   * answer: a FollowUpOutcome), declared at the handler (`@FollowUps.carriedOutBy('confirm-booking')`);
   * FollowUps finds it at start, as the journal finds its write kinds.
   */
  static carriedOutBy(kind: FollowUpKind): MethodDecorator {
    if (!KIND_NAME.test(kind)) throw new Error(`a follow-up kind is a short lower-case name with dashes, not ${JSON.stringify(kind)}`);
    return (_target, _key, descriptor) => Reflect.defineMetadata(FOLLOW_UP_HANDLER, kind, descriptor.value as object);
  }

  /** Finds every marked method of the app's providers. */
  onModuleInit(): void {
    if (!this.discovery) return;
    // One instance may be provided under several tokens (a port it implements): each is read once.
    const instances = new Set(this.discovery.getProviders().map(({ instance }) => instance as object | undefined));
    for (const instance of instances) if (instance) this.handlersOf(instance);
  }

  /** Registers `instance`'s marked methods (a unit world without Nest hands its services here). */
  handlersOf(instance: object): void {
    const prototype = Object.getPrototypeOf(instance) as Record<string, unknown> | null;
    if (!prototype) return;
    const methods = this.scanner?.getAllMethodNames(prototype) ?? Object.getOwnPropertyNames(prototype);
    for (const method of methods) {
      const carry = prototype[method];
      if (typeof carry !== 'function') continue;
      const kind = Reflect.getMetadata(FOLLOW_UP_HANDLER, carry) as FollowUpKind | undefined;
      if (kind === undefined) continue;
      this.handle(kind, (followUp) => (carry as FollowUpHandler).call(instance, followUp), `${prototype.constructor.name}.${method}`);
    }
  }

  /** Registers the handler of a kind (a unit world without Nest calls it itself); two for one kind fail the start. */
  handle(kind: FollowUpKind, handler: FollowUpHandler, at = 'a handler'): void {
    if (this.handlers.has(kind)) throw new Error(`two handlers of the follow-up kind ${kind}, the second at ${at}`);
    this.handlers.set(kind, handler);
  }

  /** The step, in the batch that records the write it follows, that makes it due. */
  step(followUp: FollowUp): BatchStep {
    this.remember(followUp, this.clock.now() + FOLLOW_UP_GRACE_MS);
    return { op: 'indexAdd', key: this.due, member: memberOf(followUp), score: this.clock.now() + FOLLOW_UP_GRACE_MS, otherSlot: true };
  }

  private remember(followUp: FollowUp, dueAt: number): void {
    const member = memberOf(followUp);
    const known = this.remembered.get(member);
    if (known) {
      known.dueAt = dueAt;
      return;
    }
    setBounded(this.remembered, member, { followUp, dueAt, since: this.clock.now() }, REMEMBERED_AT_MOST);
  }

  private firstTried(member: string): number {
    const since = this.remembered.get(member)?.since ?? this.tried.get(member);
    if (since !== undefined) return since;
    setBounded(this.tried, member, this.clock.now(), REMEMBERED_AT_MOST);
    return this.clock.now();
  }

  /**
   * Every replica's part, beside the sweep's: carries out the follow-ups it recorded itself that are
   * due, putting each back in `follow-ups:due` when a Redis that lost data no longer holds it.
   */
  async runRemembered(): Promise<number> {
    const now = this.clock.now();
    let ended = 0;
    for (const [member, { followUp, dueAt, since }] of [...this.remembered]) {
      if (since + REMEMBERED_FOR_MS < now) {
        this.remembered.delete(member);
        continue;
      }
      if (dueAt > now) continue;
      if ((await this.run(followUp).catch(() => 'retry' as const)) !== 'retry') ended += 1;
    }
    return ended;
  }

  /**
   * Records one whose cause is no write of the journal's (a session that could not be opened), then
   * carries it out: recorded first, so a replica that dies meanwhile leaves it to the sweep.
   */
  async recordAndRun(followUp: FollowUp): Promise<FollowUpOutcome> {
    this.remember(followUp, this.clock.now() + FOLLOW_UP_GRACE_MS);
    await this.store.indexAdd(this.due, memberOf(followUp), this.clock.now() + FOLLOW_UP_GRACE_MS);
    return this.run(followUp);
  }

  /** Carries one out now (the request's own try): done or refused, it is no longer due; otherwise the sweep tries again. */
  async run(followUp: FollowUp): Promise<FollowUpOutcome> {
    const handler = this.handlers.get(followUp.kind);
    let outcome: FollowUpOutcome = 'retry';
    if (!handler) {
      if (!this.unhandled.has(followUp.kind)) {
        this.unhandled.add(followUp.kind);
        this.logger.error({ kind: followUp.kind }, 'no room of this replica carries out this follow-up kind; it stays due');
      }
    } else {
      try {
        outcome = await handler(followUp);
      } catch (error) {
        this.logger.warn(
          { err: error, kind: followUp.kind, reservationId: followUp.reservationId },
          'a follow-up write failed; it is tried again',
        );
      }
    }
    const member = memberOf(followUp);
    const age = this.clock.now() - this.firstTried(member);
    if (outcome === 'retry' && handler && age >= GIVEN_UP_AFTER_MS) {
      this.logger.error(
        { kind: followUp.kind, reservationId: followUp.reservationId },
        'a write that had to follow a landed one was still not carried out a day on; it is not tried again: the operator must see to this reservation',
      );
      outcome = 'refused';
    } else if (outcome === 'retry') {
      const retryAt = this.clock.now() + Math.min(Math.max(age / 4, RETRY_AFTER_AT_LEAST_MS), RETRY_AFTER_AT_MOST_MS);
      const remembered = this.remembered.get(member);
      if (remembered) remembered.dueAt = retryAt;
      await this.store.indexAdd(this.due, member, retryAt);
      return outcome;
    } else if (outcome === 'refused') {
      this.logger.error(
        { kind: followUp.kind, reservationId: followUp.reservationId },
        'the platform refused a write that had to follow a landed one: the operator must see to this reservation',
      );
    }
    this.remembered.delete(member);
    this.tried.delete(member);
    if (outcome === 'refused') this.metrics.followUpsRefused.inc({ kind: followUp.kind });
    await this.store.indexRemove(this.due, member);
    return outcome;
  }

  /** The sweep's part (under its lock): every follow-up due now, one after another. Answers how many ended. */
  async runDue(limit: number): Promise<number> {
    let ended = 0;
    for (const member of await this.store.indexDue(this.due, this.clock.now(), limit)) {
      const followUp = followUpOf(member);
      if (!followUp) {
        await this.store.indexRemove(this.due, member);
        continue;
      }
      if ((await this.run(followUp).catch(() => 'retry' as const)) !== 'retry') ended += 1;
    }
    return ended;
  }
}
