/**
 * One upstream write on a reservation, as the journal records it (docs/write-journal.md).
 *
 *   sent ──answer──▶ landed | refused
 *     └──no clear answer──▶ unknown ──reconciled──▶ landed | not_landed
 *
 * `sent` is written before the request leaves, so a replica that dies with its write on the wire
 * leaves a `sent` intent that the sweep reconciles like an `unknown` one.
 */
export type IntentState = 'sent' | 'landed' | 'refused' | 'unknown' | 'not_landed';

/** The writes the journal knows how to reconcile. */
export type IntentKind = 'payment-method' | 'invoice-item' | 'reservation-create' | 'reservation-status';

export interface WriteIntent<Request = unknown, Outcome = unknown> {
  id: string;
  kind: IntentKind;
  reservationId: string;
  state: IntentState;
  /** What was sent, without card data: enough for a reconciler to recognise it upstream. */
  request: Request;
  /** Ids of what the reservation held of this kind before the write: never "ours". */
  snapshot: string[];
  /** Who to tell when the outcome is found (a session), never a secret. */
  context: { sessionId?: string; attemptId?: string };
  sentAt: number;
  updatedAt: number;
  /** Reconciliations that could not tell yet. */
  checks?: number;
  /** Landed: what the upstream made; refused or not landed: why, in words safe to show. */
  outcome?: Outcome;
  reason?: string;
}

/** Who may move an intent from each state: the writer with its answer, or a reconciler. */
const NEXT: Record<IntentState, readonly IntentState[]> = {
  sent: ['landed', 'refused', 'unknown', 'not_landed'],
  unknown: ['landed', 'not_landed'],
  landed: [],
  refused: [],
  not_landed: [],
};

export function canMove(from: IntentState, to: IntentState): boolean {
  return NEXT[from].includes(to);
}

/** Settled intents block nothing; `sent` and `unknown` block every other write on the reservation. */
export function isOpen(state: IntentState): boolean {
  return state === 'sent' || state === 'unknown';
}

/** A new write may reuse an intent id only when the earlier write surely did not happen. */
export function mayResend(state: IntentState): boolean {
  return state === 'refused' || state === 'not_landed';
}

/** What a reconciler found upstream: the write landed, surely did not, or cannot be told yet. */
export type Reconciliation<Outcome> = { landed: Outcome } | { notLanded: string } | { unknown: string };
