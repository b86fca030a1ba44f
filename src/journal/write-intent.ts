import { RedisKeys } from '../redis/redis-keys';

/**
 * One upstream write as the journal records it (docs/write-journal.md draws its states). A request
 * leaves only after an atomic step found the writer's lease in Redis and moved the intent from
 * `prepared` to `sending`: a `prepared` intent anyone else finds was never sent and is fenced at
 * once; a `sending` one may land until the settle horizon.
 */
export type IntentState = 'prepared' | 'sending' | 'landed' | 'refused' | 'unknown' | 'not_landed' | 'fenced';

/**
 * A write kind's name, as its handler declares it (`@JournaledWriteKind()`, `name`): the journal
 * lists none, so a new write is added beside its feature alone (WriteKinds).
 */
export type IntentKind = string;

/**
 * What a write is on, and whose lease it takes: a reservation, or a quote before its reservation
 * exists (the guest and the reservation made from it). Its keys share one hash tag.
 */
export type WriteTarget = { readonly reservation: string } | { readonly quote: string };

export function onReservation(reservationId: string): WriteTarget {
  return { reservation: reservationId };
}

export function onQuote(upstreamQuoteId: string): WriteTarget {
  return { quote: upstreamQuoteId };
}

/** The reservation a write on a reservation is on (a kind that writes on reservations only asks this). */
export function reservationOf(target: WriteTarget): string {
  if (!('reservation' in target)) throw new Error(`a write on quote ${target.quote} was handed to a reservation's write kind`);
  return target.reservation;
}

/** The quote a write before its reservation is on. */
export function quoteOf(target: WriteTarget): string {
  if (!('quote' in target)) throw new Error(`a write on reservation ${target.reservation} was handed to a quote's write kind`);
  return target.quote;
}

/**
 * Whom an intent's outcome is told to: a session, by its ref (a digest of its id,
 * docs/product-spec.md §7), never its id or a secret. `sessionId`: an intent written before the ref.
 */
export interface IntentContext {
  sessionRef?: string;
  sessionId?: string;
  attemptId?: string;
  /** A booking's card: once it landed, the reservation is to be confirmed (a follow-up recorded in the same step). */
  confirmsBooking?: true;
}

/** The context of a write done for a session: the session by its ref. */
export function forSession(sessionId: string | undefined): IntentContext {
  return sessionId ? { sessionRef: RedisKeys.sessionRef(sessionId) } : {};
}

/** The ref of the session an intent is told to, also for an intent written before the ref. */
export function sessionRefOf(context: IntentContext): string | undefined {
  return context.sessionRef ?? (context.sessionId ? RedisKeys.sessionRef(context.sessionId) : undefined);
}

export interface WriteIntent<Request = unknown, Outcome = unknown> {
  id: string;
  kind: IntentKind;
  target: WriteTarget;
  state: IntentState;
  /** What was sent, without card data: enough for a reconciler to recognise it upstream. */
  request: Request;
  /** Ids of what the reservation held of this kind before the write: never "ours". */
  snapshot: string[];
  /** Who to tell when the outcome is found (a session), never a secret. */
  context: IntentContext;
  /** When the fence step let the request leave (when it was prepared, before that). */
  sentAt: number;
  updatedAt: number;
  /** Reconciliations that could not tell yet. */
  checks?: number;
  /** Landed: what the upstream made; refused, not landed or fenced: why, in words safe to show. */
  outcome?: Outcome;
  reason?: string;
}

/** Who may move an intent from each state: the writer (its fence step, its answer) or a reconciler. */
const NEXT: Record<IntentState, readonly IntentState[]> = {
  prepared: ['sending', 'fenced'],
  sending: ['landed', 'refused', 'unknown', 'not_landed'],
  unknown: ['landed', 'not_landed'],
  landed: [],
  refused: [],
  not_landed: [],
  fenced: [],
};

export function canMove(from: IntentState, to: IntentState): boolean {
  return NEXT[from].includes(to);
}

/** Open intents block every other write on the reservation until settled. */
export function isOpen(state: IntentState): boolean {
  return state === 'prepared' || state === 'sending' || state === 'unknown';
}

/** The request may have left: only the platform's record or the settle horizon can close it. */
export function mayHaveLeft(state: IntentState): boolean {
  return state === 'sending' || state === 'unknown';
}

/** A new write may reuse an intent id only when the earlier write surely did not happen. */
export function mayResend(state: IntentState): boolean {
  return state === 'refused' || state === 'not_landed' || state === 'fenced';
}

/**
 * Intents written before the fence existed said `sent` for what is now `sending`; those written
 * before targets were typed named only a `reservationId` (a quote's as `quote-…`, under that key).
 */
export function readIntent<Request, Outcome>(raw: string): WriteIntent<Request, Outcome> {
  const { reservationId, ...intent } = JSON.parse(raw) as Omit<WriteIntent<Request, Outcome>, 'state' | 'target'> & {
    state: IntentState | 'sent';
    target?: WriteTarget;
    reservationId?: string;
  };
  return {
    ...intent,
    target: intent.target ?? onReservation(reservationId ?? ''),
    state: intent.state === 'sent' ? 'sending' : intent.state,
  };
}

/** What a reconciler found upstream: the write landed, surely did not, or cannot be told yet. */
export type Reconciliation<Outcome> = { landed: Outcome } | { notLanded: string } | { unknown: string };
