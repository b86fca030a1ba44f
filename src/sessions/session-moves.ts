import { BookingStatus, CheckoutSession, holdEnded, PaymentMethodSummary, PendingAttempt, SessionCharge } from './checkout-session';

/**
 * Where a session stands, as its moves see it: its status, except that a succeeded session whose
 * card's charge failed waits for a replacement card (docs/product-spec.md §6.5) — still `succeeded`
 * to the site, but a card may be submitted to it.
 */
export type SessionPhase = 'requires_payment_method' | 'requires_action' | 'processing' | 'failed' | 'succeeded' | 'replacing';

export const SESSION_PHASES: readonly SessionPhase[] = [
  'requires_payment_method',
  'requires_action',
  'processing',
  'failed',
  'succeeded',
  'replacing',
];

/** Every change a checkout session may go through after it is opened, by what happened. */
export type SessionMove =
  /** The issuer asks the guest to authenticate the submitted card (3-D Secure): the site redirects. */
  | { move: 'authenticationRequired'; attempt: PendingAttempt; redirectUrl: string }
  /** An attach was sent and its outcome is being confirmed (docs/product-spec.md §6.2): the site polls. */
  | { move: 'outcomePending' }
  /** The card is on the reservation. */
  | { move: 'attached'; method: PaymentMethodSummary; tokenizedUnder: string }
  /** A card attempt ended without a card on file; a new card may follow. */
  | { move: 'failed'; error: { code: string; message: string } }
  /** An attach whose outcome was pending proved not to have landed. */
  | { move: 'notAttached' }
  /** The reservation's hold ended before it was paid (docs/product-spec.md §3.1). */
  | { move: 'holdEnded'; now: number }
  /**
   * The platform shows the reservation no longer holding its dates (`expired` or `canceled`), read
   * before a card is sent or before its confirmation (then with a `notice` on the card and money).
   */
  | { move: 'bookingEnded'; status: BookingStatus; notice?: string }
  /** The platform confirmed the reservation once its card was on file. */
  | { move: 'bookingConfirmed' }
  /** A fresh payment-status read of the reservation's charges (docs/product-spec.md §3.2); `message` names a failure. */
  | { move: 'chargeSeen'; charge: SessionCharge; message: string };

export type SessionMoveName = SessionMove['move'];

/**
 * The allowed moves: from each phase, the phases a move may lead to (the same phase: it may change
 * what the session shows, or nothing). A phase a move does not list refuses it. `succeeded` never
 * goes back: from it and from `replacing` every move leads to one of the two.
 */
export const SESSION_MOVES: Readonly<Record<SessionMoveName, Partial<Record<SessionPhase, readonly SessionPhase[]>>>> = {
  authenticationRequired: {
    requires_payment_method: ['requires_action'],
    requires_action: ['requires_action'],
    failed: ['requires_action'],
    // A replacement card waits for its issuer with the session still succeeded.
    replacing: ['replacing'],
  },
  outcomePending: {
    requires_payment_method: ['processing'],
    requires_action: ['processing'],
    failed: ['processing'],
    processing: ['processing'],
    succeeded: ['succeeded'],
    replacing: ['replacing'],
  },
  attached: {
    requires_payment_method: ['succeeded'],
    requires_action: ['succeeded'],
    processing: ['succeeded'],
    failed: ['succeeded'],
    succeeded: ['succeeded'],
    // The replacement becomes the card on file; the card it replaces, found again, changes nothing.
    replacing: ['succeeded', 'replacing'],
  },
  failed: {
    requires_payment_method: ['failed'],
    requires_action: ['failed'],
    processing: ['failed'],
    failed: ['failed'],
    // A replacement that failed leaves the card on file and the failed charge; only its issuer wait ends.
    succeeded: ['succeeded'],
    replacing: ['replacing'],
  },
  notAttached: {
    processing: ['failed'],
    requires_payment_method: ['requires_payment_method'],
    requires_action: ['requires_action'],
    failed: ['failed'],
    succeeded: ['succeeded'],
    replacing: ['replacing'],
  },
  holdEnded: {
    requires_payment_method: ['requires_payment_method'],
    requires_action: ['requires_action'],
    processing: ['processing'],
    failed: ['failed'],
    // A paid hold does not end on the clock.
    succeeded: ['succeeded'],
    replacing: ['replacing'],
  },
  bookingEnded: {
    requires_payment_method: ['requires_payment_method'],
    requires_action: ['requires_action'],
    processing: ['processing'],
    failed: ['failed'],
    succeeded: ['succeeded'],
    replacing: ['replacing'],
  },
  bookingConfirmed: {
    requires_payment_method: ['requires_payment_method'],
    requires_action: ['requires_action'],
    processing: ['processing'],
    failed: ['failed'],
    succeeded: ['succeeded'],
    replacing: ['replacing'],
  },
  chargeSeen: {
    // Charges are read for the session whose card is on file; before it shows that, they say nothing to it.
    requires_payment_method: ['requires_payment_method'],
    requires_action: ['requires_action'],
    processing: ['processing'],
    failed: ['failed'],
    succeeded: ['succeeded', 'replacing'],
    replacing: ['replacing'],
  },
};

/** A booking's status, or `none` for a session on a reservation the site brought. */
export type BookingPhase = BookingStatus | 'none';

export const BOOKING_PHASES: readonly BookingPhase[] = ['none', 'reserved', 'confirmed', 'expired', 'canceled'];

/** The moves that change a session's booking, and where each may take it. */
type BookingMoveName = 'holdEnded' | 'bookingEnded' | 'bookingConfirmed';

export const BOOKING_MOVES: Readonly<Record<BookingMoveName, Partial<Record<BookingPhase, readonly BookingPhase[]>>>> = {
  holdEnded: {
    reserved: ['expired'],
    expired: ['expired'],
    confirmed: ['confirmed'],
    canceled: ['canceled'],
  },
  // The platform is the record: however the session last showed the booking, it shows how the platform ended it.
  bookingEnded: {
    reserved: ['expired', 'canceled'],
    expired: ['expired', 'canceled'],
    confirmed: ['expired', 'canceled'],
    canceled: ['expired', 'canceled'],
  },
  bookingConfirmed: {
    reserved: ['confirmed'],
    // The hold ended on our clock while the platform still confirmed it: the platform is the record.
    expired: ['confirmed'],
    confirmed: ['confirmed'],
  },
};

/** A move the table does not allow: a defect in the caller, never written. */
export class SessionMoveRefused extends Error {
  constructor(move: SessionMoveName | 'opened', from: string, to?: string) {
    super(`checkout session move ${move} is not allowed from ${from}${to ? ` to ${to}` : ''}`);
    this.name = 'SessionMoveRefused';
  }
}

export function phaseOf(session: CheckoutSession): SessionPhase {
  return session.status === 'succeeded' && awaitsReplacement(session) ? 'replacing' : session.status;
}

/** A succeeded session waiting for a replacement card: the platform reported a failed charge (payment-status). */
export function awaitsReplacement(session: CheckoutSession): boolean {
  return session.lastError?.code === 'charge_failed';
}

/**
 * The session after `move`, or null when the move changes nothing. Throws SessionMoveRefused for a
 * move the table does not allow from where the session stands.
 */
export function nextSession(current: CheckoutSession, move: SessionMove): CheckoutSession | null {
  const from = phaseOf(current);
  const allowed = SESSION_MOVES[move.move][from];
  if (!allowed) throw new SessionMoveRefused(move.move, from);
  const bookingAllowed = move.move in BOOKING_MOVES ? bookingMove(current, move.move as BookingMoveName) : undefined;
  const next = apply(current, move);
  if (next === null) return null;
  const to = phaseOf(next);
  if (!allowed.includes(to)) throw new SessionMoveRefused(move.move, from, to);
  if (bookingAllowed && !bookingAllowed.includes(next.booking?.status ?? 'none')) {
    throw new SessionMoveRefused(move.move, `booking ${current.booking?.status ?? 'none'}`, `booking ${next.booking?.status ?? 'none'}`);
  }
  return next;
}

function bookingMove(current: CheckoutSession, move: BookingMoveName): readonly BookingPhase[] {
  const from = current.booking?.status ?? 'none';
  const allowed = BOOKING_MOVES[move][from];
  if (!allowed) throw new SessionMoveRefused(move, `booking ${from}`);
  return allowed;
}

function apply(current: CheckoutSession, move: SessionMove): CheckoutSession | null {
  switch (move.move) {
    case 'authenticationRequired':
      if (awaitsReplacement(current) && current.status === 'succeeded') {
        // The replacement keeps charge_failed until it is attached: that is what lets its return attach it.
        return { ...current, nextAction: { type: 'redirect', redirectUrl: move.redirectUrl }, pendingAttempt: move.attempt };
      }
      return {
        ...current,
        status: 'requires_action',
        nextAction: { type: 'redirect', redirectUrl: move.redirectUrl },
        pendingAttempt: move.attempt,
        lastError: undefined,
      };
    case 'outcomePending':
      return current.status === 'succeeded' || current.status === 'processing'
        ? null
        : { ...current, status: 'processing', nextAction: undefined, lastError: undefined };
    case 'attached':
      if (current.status === 'succeeded' && (!awaitsReplacement(current) || current.paymentMethod?.id === move.method.id)) return null;
      return {
        ...current,
        status: 'succeeded',
        paymentMethod: move.method,
        tokenizedUnder: move.tokenizedUnder,
        nextAction: undefined,
        pendingAttempt: undefined,
        lastError: undefined,
        charge: undefined,
      };
    case 'failed':
      if (current.status === 'succeeded') {
        return current.pendingAttempt || current.nextAction ? { ...current, nextAction: undefined, pendingAttempt: undefined } : null;
      }
      return { ...current, status: 'failed', lastError: move.error, nextAction: undefined, pendingAttempt: undefined };
    case 'notAttached':
      return current.status === 'processing'
        ? {
            ...current,
            status: 'failed',
            pendingAttempt: undefined,
            lastError: { code: 'not_attached', message: 'The card was not added to the reservation. Please try again.' },
          }
        : null;
    case 'holdEnded':
      return current.booking && holdEnded(current, move.now) ? { ...current, booking: { ...current.booking, status: 'expired' } } : null;
    case 'bookingEnded':
      return current.booking && (current.booking.status !== move.status || (move.notice && current.booking.notice !== move.notice))
        ? { ...current, booking: { ...current.booking, status: move.status, ...(move.notice ? { notice: move.notice } : {}) } }
        : null;
    case 'bookingConfirmed':
      return current.booking && current.booking.status !== 'confirmed'
        ? { ...current, booking: { ...current.booking, status: 'confirmed' } }
        : null;
    case 'chargeSeen': {
      if (current.status !== 'succeeded') return null;
      const failed = move.charge.next === 'another_card' && !awaitsReplacement(current);
      if (!failed && sameCharge(current.charge, move.charge)) return null;
      return {
        ...current,
        charge: move.charge,
        ...(failed ? { lastError: { code: 'charge_failed', message: move.message } } : {}),
      };
    }
  }
}

function sameCharge(a: SessionCharge | undefined, b: SessionCharge): boolean {
  return a?.next === b.next && a.redirectUrl === b.redirectUrl;
}
