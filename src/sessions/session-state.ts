import { Injectable } from '@nestjs/common';
import { CheckoutSession, SessionPointer } from './checkout-session';
import { RecordRead, StepsBeside } from '../redis/key-value-store';
import { CheckoutSessionsStore, SessionCreateStep } from './checkout-sessions.store';
import { nextSession, SessionMove, SessionMoveRefused } from './session-moves';

/** What opening a session takes: the record without what only its moves set. */
export type NewSession = Omit<
  CheckoutSession,
  'version' | 'status' | 'nextAction' | 'paymentMethod' | 'lastError' | 'pendingAttempt' | 'tokenizedUnder' | 'charge'
>;

/** The session as it opens; refused unless a reservation made for it is still held. */
function opened(session: NewSession): Omit<CheckoutSession, 'version'> {
  if (session.booking && session.booking.status !== 'reserved') throw new SessionMoveRefused('opened', `booking ${session.booking.status}`);
  return { ...session, status: 'requires_payment_method' };
}

/**
 * The one owner of checkout session state: every room reads sessions here and changes them only by
 * a named move (session-moves.ts), applied by compare-and-set on the session's version
 * (docs/product-spec.md §6.4). A move the table does not allow is refused, never written.
 */
@Injectable()
export class SessionState {
  constructor(private readonly records: CheckoutSessionsStore) {}

  newId(): string {
    return this.records.newId();
  }

  load(id: string): Promise<CheckoutSession | null> {
    return this.records.load(id);
  }

  /**
   * The session of this id, to be read in one step with a key of its slot (an Idempotency-Key's
   * claim, a reservation's lease); null for an id that names none.
   */
  readable(id: string): RecordRead<CheckoutSession | null> | null {
    const key = this.records.storedAt(id);
    return key === null ? null : { key, open: (stored) => this.records.fromStored(id, stored) };
  }

  /** The session a record points at (the card on file, a booking), or null when there is none. */
  pointedAt(pointer: SessionPointer): Promise<CheckoutSession | null> {
    return this.records.pointedAt(pointer);
  }

  /** The session, or 404 session_not_found. */
  require(id: string): Promise<CheckoutSession> {
    return this.records.require(id);
  }

  /** A new session waits for a card; a reservation made for it is held (`reserved`). */
  async open(session: NewSession): Promise<CheckoutSession> {
    return await this.records.create(opened(session));
  }

  /**
   * `open` as a step of the caller's batch (see CheckoutSessionsStore.createStep): `written` answers
   * the session once the step's answer says it was written.
   */
  openStep(session: NewSession): SessionCreateStep {
    return this.records.createStep(opened(session));
  }

  /**
   * Applies `move` to the session as it now is (`known`: as the caller read it under its lease, which
   * saves a read). Answers the session after it; 404 when it is gone, 409 when writers kept racing.
   */
  move(id: string, move: SessionMove, known?: CheckoutSession): Promise<CheckoutSession> {
    return this.records.update(id, (current) => nextSession(current, move), known);
  }

  /**
   * The session as `move` would leave it, not written: what a read reports of a session whose
   * record lags (its move was lost with a replica), until a press records it.
   */
  reported(session: CheckoutSession, move: SessionMove): CheckoutSession {
    return nextSession(session, move) ?? session;
  }

  /**
   * A move that follows an upstream write that landed: kept while Redis is down and applied once it
   * answers (docs/product-spec.md §6.6). `beside`: steps of the session's slot written in the same
   * step (the request's stored answer). Answers the session as this replica knows it.
   */
  recordOutcome(id: string, move: SessionMove, known: CheckoutSession, beside?: StepsBeside<CheckoutSession>): Promise<CheckoutSession> {
    return this.records.recordOutcome(id, (current) => nextSession(current, move), known, beside);
  }
}
