import { CheckoutSession, SessionBooking } from './checkout-session';
import {
  BOOKING_MOVES,
  BOOKING_PHASES,
  BookingPhase,
  nextSession,
  phaseOf,
  SESSION_MOVES,
  SESSION_PHASES,
  SessionMove,
  SessionMoveName,
  SessionMoveRefused,
  SessionPhase,
} from './session-moves';

const NOW = 1_700_000_000_000;
const HOLD_ENDED = new Date(NOW - 60_000).toISOString();

const booking = (status: SessionBooking['status']): SessionBooking => ({
  reservationId: 'res-1',
  confirmationCode: 'GY-1',
  status,
  checkIn: '2026-12-01',
  checkOut: '2026-12-04',
  holdExpiresAt: HOLD_ENDED,
});

const base: CheckoutSession = {
  id: `cs_${'a'.repeat(32)}`,
  version: 3,
  status: 'requires_payment_method',
  reservationId: 'res-1',
  listingId: 'lst-1',
  guestId: 'guest-1',
  paymentProviderId: 'pp-1',
  amount: 300,
  currency: 'USD',
  createdAt: NOW - 600_000,
  expiresAt: NOW + 3_000_000,
  booking: booking('reserved'),
};

const attempt = { id: 'att-1', tokenId: 'tok-1', paymentProviderId: 'pp-1', last4: '4242', brand: 'visa' };

/** One session standing in each phase, as the product leaves it there. */
const IN: Record<SessionPhase, CheckoutSession> = {
  requires_payment_method: base,
  requires_action: {
    ...base,
    status: 'requires_action',
    nextAction: { type: 'redirect', redirectUrl: 'https://issuer.example/3ds' },
    pendingAttempt: attempt,
  },
  processing: { ...base, status: 'processing', pendingAttempt: attempt },
  failed: { ...base, status: 'failed', lastError: { code: 'card_declined', message: 'declined' } },
  succeeded: {
    ...base,
    status: 'succeeded',
    paymentMethod: { id: 'pm_1', last4: '4242' },
    tokenizedUnder: 'pp-1',
    charge: { next: 'nothing' },
  },
  replacing: {
    ...base,
    status: 'succeeded',
    paymentMethod: { id: 'pm_1', last4: '4242' },
    tokenizedUnder: 'pp-1',
    charge: { next: 'another_card' },
    lastError: { code: 'charge_failed', message: 'The charge failed.' },
  },
};

/** One instance of each move. */
const MOVE: Record<SessionMoveName, SessionMove> = {
  authenticationRequired: {
    move: 'authenticationRequired',
    attempt: { ...attempt, id: 'att-2' },
    redirectUrl: 'https://issuer.example/3ds-2',
  },
  outcomePending: { move: 'outcomePending' },
  attached: { move: 'attached', method: { id: 'pm_2', last4: '1881', brand: 'visa' }, tokenizedUnder: 'pp-1' },
  failed: { move: 'failed', error: { code: 'card_declined', message: 'The card was declined.' } },
  notAttached: { move: 'notAttached' },
  holdEnded: { move: 'holdEnded', now: NOW },
  bookingEnded: { move: 'bookingEnded', status: 'canceled' },
  bookingConfirmed: { move: 'bookingConfirmed' },
  chargeSeen: { move: 'chargeSeen', charge: { next: 'another_card' }, message: 'The charge failed.' },
};

type Outcome = SessionPhase | 'unchanged' | 'refused';
const P = 'requires_payment_method',
  A = 'requires_action',
  R = 'processing',
  F = 'failed',
  S = 'succeeded',
  X = 'replacing',
  same = 'unchanged',
  no = 'refused';

/**
 * Every phase × every move, written out by hand: the phase the session is written in, `unchanged`
 * (nothing to write), or `refused` (a defect: an internal error, nothing written).
 */
const EXPECTED: Record<SessionMoveName, Record<SessionPhase, Outcome>> = {
  //                       requires_payment_method requires_action processing failed succeeded replacing
  authenticationRequired: { [P]: A, [A]: A, [R]: no, [F]: A, [S]: no, [X]: X },
  outcomePending: { [P]: R, [A]: R, [R]: same, [F]: R, [S]: same, [X]: same },
  attached: { [P]: S, [A]: S, [R]: S, [F]: S, [S]: same, [X]: S },
  failed: { [P]: F, [A]: F, [R]: F, [F]: F, [S]: same, [X]: same },
  notAttached: { [P]: same, [A]: same, [R]: F, [F]: same, [S]: same, [X]: same },
  holdEnded: { [P]: P, [A]: A, [R]: R, [F]: F, [S]: same, [X]: same },
  bookingEnded: { [P]: P, [A]: A, [R]: R, [F]: F, [S]: S, [X]: X },
  bookingConfirmed: { [P]: P, [A]: A, [R]: R, [F]: F, [S]: S, [X]: X },
  chargeSeen: { [P]: same, [A]: same, [R]: same, [F]: same, [S]: X, [X]: same },
};

function outcomeOf(session: CheckoutSession, move: SessionMove): Outcome {
  try {
    const next = nextSession(session, move);
    return next === null ? 'unchanged' : phaseOf(next);
  } catch (error) {
    if (error instanceof SessionMoveRefused) return 'refused';
    throw error;
  }
}

const NAMES = Object.keys(MOVE) as SessionMoveName[];

describe('checkout session moves: the table of allowed moves (docs/product-spec.md §3)', () => {
  it('names every move and every phase', () => {
    expect(Object.keys(SESSION_MOVES).sort()).toEqual([...NAMES].sort());
    expect(Object.keys(EXPECTED).sort()).toEqual([...NAMES].sort());
    expect(Object.keys(IN)).toEqual([...SESSION_PHASES]);
    for (const phase of SESSION_PHASES) expect(phaseOf(IN[phase])).toBe(phase);
  });

  describe.each(NAMES)('%s', (name) => {
    it.each(SESSION_PHASES)('from %s', (phase) => {
      const expected = EXPECTED[name][phase];
      expect(outcomeOf(IN[phase], MOVE[name])).toBe(expected);
      // The table lists exactly the phases the move is allowed from, and where it leads.
      const listed = SESSION_MOVES[name][phase];
      if (expected === 'refused') expect(listed).toBeUndefined();
      else expect(listed).toContain(expected === 'unchanged' ? phase : expected);
    });
  });

  it('never takes a succeeded session back', () => {
    for (const name of NAMES) {
      for (const from of ['succeeded', 'replacing'] as const) {
        for (const to of SESSION_MOVES[name][from] ?? []) expect(['succeeded', 'replacing']).toContain(to);
      }
    }
  });

  it('refuses with a clear internal error naming the move and where the session stands', () => {
    expect(() => nextSession(IN.succeeded, MOVE.authenticationRequired)).toThrow(
      new SessionMoveRefused('authenticationRequired', 'succeeded'),
    );
    expect(new SessionMoveRefused('authenticationRequired', 'succeeded').message).toBe(
      'checkout session move authenticationRequired is not allowed from succeeded',
    );
  });
});

describe("checkout session moves: the booking's own table (docs/product-spec.md §3.1)", () => {
  const BOOKING_EXPECTED: Record<keyof typeof BOOKING_MOVES, Record<BookingPhase, BookingPhase | 'unchanged' | 'refused'>> = {
    holdEnded: { none: 'refused', reserved: 'expired', expired: 'unchanged', confirmed: 'unchanged', canceled: 'unchanged' },
    bookingEnded: { none: 'refused', reserved: 'canceled', expired: 'canceled', confirmed: 'canceled', canceled: 'unchanged' },
    bookingConfirmed: { none: 'refused', reserved: 'confirmed', expired: 'confirmed', confirmed: 'unchanged', canceled: 'refused' },
  };
  const withBooking = (phase: BookingPhase): CheckoutSession =>
    phase === 'none' ? { ...base, booking: undefined } : { ...base, booking: booking(phase) };

  describe.each(['holdEnded', 'bookingEnded', 'bookingConfirmed'] as const)('%s', (name) => {
    it.each(BOOKING_PHASES)('from booking %s', (phase) => {
      let outcome: BookingPhase | 'unchanged' | 'refused';
      try {
        const next = nextSession(withBooking(phase), MOVE[name]);
        outcome = next === null ? 'unchanged' : (next.booking?.status ?? 'none');
      } catch (error) {
        if (!(error instanceof SessionMoveRefused)) throw error;
        outcome = 'refused';
      }
      expect(outcome).toBe(BOOKING_EXPECTED[name][phase]);
      const listed = BOOKING_MOVES[name][phase];
      if (outcome === 'refused') expect(listed).toBeUndefined();
      else expect(listed).toContain(outcome === 'unchanged' ? phase : outcome);
    });
  });

  it('ends a booking only as the platform ends holds: expired or canceled', () => {
    expect(nextSession(base, { move: 'bookingEnded', status: 'expired' })).toMatchObject({ booking: { status: 'expired' } });
    expect(() => nextSession(base, { move: 'bookingEnded', status: 'confirmed' })).toThrow(SessionMoveRefused);
  });

  it('leaves a hold that has not ended as it is', () => {
    const holding = { ...base, booking: { ...booking('reserved'), holdExpiresAt: new Date(NOW + 60_000).toISOString() } };
    expect(nextSession(holding, MOVE.holdEnded)).toBeNull();
  });
});

describe('checkout session moves: what each move shows the site', () => {
  it('asks for authentication: the redirect and the attempt, the last error gone', () => {
    expect(nextSession(IN.failed, MOVE.authenticationRequired)).toMatchObject({
      status: 'requires_action',
      nextAction: { type: 'redirect', redirectUrl: 'https://issuer.example/3ds-2' },
      pendingAttempt: { id: 'att-2' },
      lastError: undefined,
    });
  });

  it('lets a replacement card wait for its issuer while the session stays succeeded with its failed charge', () => {
    expect(nextSession(IN.replacing, MOVE.authenticationRequired)).toMatchObject({
      status: 'succeeded',
      nextAction: { redirectUrl: 'https://issuer.example/3ds-2' },
      pendingAttempt: { id: 'att-2' },
      lastError: { code: 'charge_failed' },
    });
  });

  it('keeps the attempt while its outcome is pending, so its return can still attach it', () => {
    expect(nextSession(IN.requires_action, MOVE.outcomePending)).toMatchObject({
      status: 'processing',
      nextAction: undefined,
      pendingAttempt: { id: 'att-1' },
    });
  });

  it('puts the card on file and forgets the attempt, the error and the old charges', () => {
    const attached = nextSession(IN.replacing, MOVE.attached);
    expect(attached).toMatchObject({ status: 'succeeded', paymentMethod: { id: 'pm_2', last4: '1881' }, tokenizedUnder: 'pp-1' });
    expect(attached).toMatchObject({ nextAction: undefined, pendingAttempt: undefined, lastError: undefined, charge: undefined });
    // The card being replaced, found again, is not its replacement.
    const again: SessionMove = { ...MOVE.attached, method: { id: 'pm_1', last4: '4242' } } as SessionMove;
    expect(nextSession(IN.replacing, again)).toBeNull();
  });

  it('records a failure with its code, and ends a replacement’s issuer wait without touching its card', () => {
    expect(nextSession(IN.requires_action, MOVE.failed)).toMatchObject({
      status: 'failed',
      lastError: { code: 'card_declined' },
      nextAction: undefined,
      pendingAttempt: undefined,
    });
    const waiting = nextSession(IN.replacing, MOVE.authenticationRequired)!;
    expect(nextSession(waiting, MOVE.failed)).toMatchObject({
      status: 'succeeded',
      paymentMethod: { id: 'pm_1' },
      lastError: { code: 'charge_failed' },
      nextAction: undefined,
      pendingAttempt: undefined,
    });
  });

  it('fails a pending attach that did not land as not_attached', () => {
    expect(nextSession(IN.processing, MOVE.notAttached)).toMatchObject({
      status: 'failed',
      pendingAttempt: undefined,
      lastError: { code: 'not_attached' },
    });
  });

  it('notes a failed charge once; later reads change the charge but keep the failure until a replacement', () => {
    const failed = nextSession(IN.succeeded, MOVE.chargeSeen)!;
    expect(failed).toMatchObject({ status: 'succeeded', charge: { next: 'another_card' }, lastError: { code: 'charge_failed' } });
    const paid = nextSession(failed, { move: 'chargeSeen', charge: { next: 'nothing' }, message: '' });
    expect(paid).toMatchObject({ charge: { next: 'nothing' }, lastError: { code: 'charge_failed' } });
    expect(nextSession(IN.succeeded, { move: 'chargeSeen', charge: { next: 'nothing' }, message: '' })).toBeNull();
  });
});
