import type { FaultKind } from './schedule';
import type { Verdict } from './balancer';

/**
 * What the guests did and were told, kept to be held against the platform's own record at the end.
 * Every card a guest submits has last digits no other submission on that reservation has, so a card
 * on the platform names the submission that put it there.
 */

export interface Told {
  /** Which replica path answered, and what (for the violation's story). */
  said: string;
  verdict: Verdict;
  /** The answer's code and Retry-After, when it was an HTTP answer: the retry rule is checked on them. */
  code?: string;
  retryAfterSeconds?: number;
}

export interface CardSubmission {
  operation: number;
  sessionId: string;
  reservationId: string;
  last4: string;
  told: Told[];
  /** The last thing the guest was told: landed, refused, or still open when the guest gave up. */
  outcome: Verdict;
}

export interface ExtrasRequest {
  operation: number;
  sessionId: string;
  reservationId: string;
  title: string;
  told: Told[];
  outcome: Verdict;
}

export interface BookingRequest {
  operation: number;
  email: string;
  /** The booking answers of every key the guest used on this quote, in order. */
  told: Told[];
  outcome: Verdict;
  sessionId?: string;
}

export interface CheckoutSessionRecord {
  operation: number;
  id: string;
  reservationId: string;
  guestId: string;
}

export interface ReservationRecord {
  operation: number;
  reservationId: string;
  guestId: string;
  /** 1, or 2 once the platform reported a failed charge and the guest was offered a replacement. */
  cardsAllowed: number;
}

export class Ledger {
  readonly sessions: CheckoutSessionRecord[] = [];
  readonly reservations = new Map<string, ReservationRecord>();
  readonly cards: CardSubmission[] = [];
  readonly extras: ExtrasRequest[] = [];
  readonly bookings: BookingRequest[] = [];
  readonly faults = new Map<FaultKind, number>();
  /** Operations that ended before their write (a read that never answered, dates taken): not a finding. */
  readonly abandoned: { operation: number; why: string }[] = [];
  readonly completed = new Map<string, number>();

  /** Whether Redis lost data during the campaign (emptied, or a failover): sessions and quotes may be gone. */
  storeLost(): boolean {
    return (this.faults.get('redis_emptied') ?? 0) + (this.faults.get('redis_failover') ?? 0) > 0;
  }

  countFault(kind: FaultKind): void {
    this.faults.set(kind, (this.faults.get(kind) ?? 0) + 1);
  }

  reservation(operation: number, reservationId: string, guestId: string): ReservationRecord {
    const known = this.reservations.get(reservationId);
    if (known) return known;
    const record = { operation, reservationId, guestId, cardsAllowed: 1 };
    this.reservations.set(reservationId, record);
    return record;
  }
}
