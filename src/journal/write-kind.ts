import { Injectable } from '@nestjs/common';
import { DomainError } from '../common/errors/domain-error';
import { BatchStep } from '../redis/key-value-store';
import { GuestyClient } from '../upstream/guesty-client';
import { UpstreamError } from '../upstream/upstream-error';
import { IntentContext, IntentKind, Reconciliation, WriteIntent, WriteTarget } from './write-intent';

/**
 * One upstream write, declared once (docs/write-journal.md, "Write kinds"): how it is sent, how it
 * is found on the platform when its answer is unclear, what counts as refused before any effect,
 * and what the target records beside it when it lands. A feature hands the journal a kind, a key
 * and a payload under the target's lease.
 */
export interface WriteKind<Payload = unknown, Request = unknown, Outcome = unknown> {
  readonly name: IntentKind;
  /**
   * Sending it again after it landed changes nothing (a status set twice is set once): an open
   * intent its re-read does not find is settled not landed at once, not after the settle horizon.
   */
  readonly repeatable: boolean;
  /** What the journal records of the write (no card data: enough to find it upstream) and whom to tell. */
  describe(target: WriteTarget, payload: Payload): { request: Request; context: IntentContext };
  /** Ids of what the target holds of this kind before the write, never "ours"; read only when it is to be sent. */
  snapshot(target: WriteTarget, payload: Payload): Promise<string[]>;
  /** The one upstream write. */
  send(target: WriteTarget, payload: Payload, snapshot: string[]): Promise<Outcome>;
  /** The re-read that settles a `sending` or `unknown` intent: the platform shows it, surely does not, or cannot tell yet. */
  find(intent: WriteIntent<Request, Outcome>): Promise<Reconciliation<Outcome>>;
  /** True for an error that surely means nothing happened upstream: the same intent may be sent again. */
  refusedBeforeEffect(error: unknown): boolean;
  /** Records of the target's own hash tag written in the same step as the outcome, when it landed. */
  alongside(intent: WriteIntent<Request, Outcome>, outcome: Outcome): BatchStep[];
  /** Told when anyone but its own writer settled it (the sweep, a later request), after the outcome is recorded. */
  settledElsewhere(intent: WriteIntent<Request, Outcome>): Promise<void>;
}

/** Any write kind, as the journal keeps them by name. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyWriteKind = WriteKind<any, any, any>;

/** Write kinds by their names (a unit spec's world builds them all; WriteKinds.assertHandled names one left out). */
export type WriteKindsByName = Readonly<Record<IntentKind, AnyWriteKind>>;

/**
 * A write surely did nothing when it never left, or the platform answered it with a refusal (4xx,
 * 429 included: refused before any effect). Errors raised before the request (budget, token, store)
 * are domain errors without an upstream status. Anything else may have landed.
 */
export function refusedBeforeEffect(error: unknown): boolean {
  if (error instanceof UpstreamError) return !error.maybeSent || (error.upstreamStatus !== undefined && error.upstreamStatus < 500);
  return error instanceof DomainError;
}

/**
 * The parts most kinds share: the upstream client they send with, the common refusal rule, no
 * snapshot, nothing recorded beside, nobody else to tell.
 */
@Injectable()
export abstract class JournaledWrite<Payload, Request, Outcome> implements WriteKind<Payload, Request, Outcome> {
  abstract readonly name: IntentKind;
  readonly repeatable: boolean = false;

  constructor(protected readonly guesty: GuestyClient) {}

  abstract describe(target: WriteTarget, payload: Payload): { request: Request; context: IntentContext };
  abstract send(target: WriteTarget, payload: Payload, snapshot: string[]): Promise<Outcome>;
  abstract find(intent: WriteIntent<Request, Outcome>): Promise<Reconciliation<Outcome>>;

  snapshot(_target: WriteTarget, _payload: Payload): Promise<string[]> {
    return Promise.resolve([]);
  }

  refusedBeforeEffect(error: unknown): boolean {
    return refusedBeforeEffect(error);
  }

  alongside(_intent: WriteIntent<Request, Outcome>, _outcome: Outcome): BatchStep[] {
    return [];
  }

  settledElsewhere(_intent: WriteIntent<Request, Outcome>): Promise<void> {
    return Promise.resolve();
  }
}
