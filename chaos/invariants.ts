import type { Balancer } from './balancer';
import type { Ledger } from './ledger';
import { Random } from './random';
import type { ChaosWorld } from './world';

/** What must hold whatever the faults, each checked against the platform's own record (the sandbox), never our Redis. */
export const INVARIANTS = [
  'one_card_per_reservation',
  'one_reservation_per_quote',
  'extras_line_once',
  'told_failed_but_landed',
  'settled_within_horizon',
  'session_agrees_with_platform',
] as const;
export type Invariant = (typeof INVARIANTS)[number];

export interface Violation {
  invariant: Invariant;
  operation: number;
  detail: string;
}

const LIVE_RESERVATION = new Set(['reserved', 'confirmed', 'inquiry']);

function cardsOn(world: ChaosWorld, guestId: string, reservationId: string): string[] {
  return world.sandbox.control
    .getPaymentMethods(guestId)
    .filter((method) => method.reservationId === reservationId)
    .map((method) => method.last4 as string);
}

function linesOn(world: ChaosWorld, reservationId: string, title: string): number {
  const money = world.sandbox.control.getReservation(reservationId)?.money as { invoiceItems?: { title: string }[] } | undefined;
  return (money?.invoiceItems ?? []).filter((item) => item.title === title).length;
}

const story = (told: { said: string }[]) => told.map((entry) => entry.said).join(' → ');

/** Every invariant over everything the guests did; the sessions are read as a page would, through the balancer. */
export async function checkInvariants(world: ChaosWorld, balancer: Balancer, ledger: Ledger): Promise<Violation[]> {
  const violations: Violation[] = [];
  const found = (invariant: Invariant, operation: number, detail: string) => violations.push({ invariant, operation, detail });

  for (const reservation of ledger.reservations.values()) {
    const cards = cardsOn(world, reservation.guestId, reservation.reservationId);
    if (cards.length > reservation.cardsAllowed) {
      found(
        'one_card_per_reservation',
        reservation.operation,
        `${reservation.reservationId} holds ${cards.length} cards (${cards.join(', ')}), ${reservation.cardsAllowed} allowed`,
      );
    }
  }

  for (const submission of ledger.cards) {
    const reservation = ledger.reservations.get(submission.reservationId)!;
    const landed = cardsOn(world, reservation.guestId, submission.reservationId).includes(submission.last4);
    if (landed && submission.told.some((entry) => entry.verdict === 'refused')) {
      found(
        'told_failed_but_landed',
        submission.operation,
        `card …${submission.last4} on ${submission.reservationId} landed; the guest was told ${story(submission.told)}`,
      );
    }
    if (submission.outcome === 'open') {
      found(
        'settled_within_horizon',
        submission.operation,
        `card …${submission.last4} on ${submission.reservationId} still open when the guest gave up: ${story(submission.told)}`,
      );
    }
  }

  for (const request of ledger.extras) {
    const lines = linesOn(world, request.reservationId, request.title);
    if (lines > 1)
      found(
        'extras_line_once',
        request.operation,
        `"${request.title}" on ${request.reservationId} ${lines} times; the guest was told ${story(request.told)}`,
      );
    if (lines > 0 && request.told.some((entry) => entry.verdict === 'refused')) {
      found(
        'told_failed_but_landed',
        request.operation,
        `"${request.title}" on ${request.reservationId} landed; the guest was told ${story(request.told)}`,
      );
    }
    if (request.outcome === 'open')
      found(
        'settled_within_horizon',
        request.operation,
        `"${request.title}" on ${request.reservationId} still open: ${story(request.told)}`,
      );
  }

  for (const request of ledger.bookings) {
    const guest = world.sandbox.control.getGuestsByEmail(request.email)[0];
    const reservations = guest ? world.sandbox.control.getGuestReservations(guest._id as string) : [];
    if (reservations.length > 1) {
      found(
        'one_reservation_per_quote',
        request.operation,
        `one quote made ${reservations.length} reservations (${reservations.map((r) => `${r._id} ${r.status}`).join(', ')}); the guest was told ${story(request.told)}`,
      );
    }
    const live = reservations.filter((reservation) => LIVE_RESERVATION.has(reservation.status));
    if (request.outcome !== 'landed' && live.length > 0) {
      found(
        'told_failed_but_landed',
        request.operation,
        `${live.map((r) => `${r._id} ${r.status}`).join(', ')} holds the guest's dates; the guest was told ${story(request.told)}`,
      );
    }
    if (request.outcome === 'open') found('settled_within_horizon', request.operation, `booking still open: ${story(request.told)}`);
  }

  const reader = new Random(0, 7);
  for (const session of ledger.sessions) {
    const answer = await balancer.send(reader, 'GET', `/checkout/sessions/${session.id}`);
    if (answer.status !== 200) {
      found('session_agrees_with_platform', session.operation, `session of ${session.reservationId} answers ${answer.status}`);
      continue;
    }
    const status = answer.body.status as string;
    if (status === 'processing') {
      found('settled_within_horizon', session.operation, `session of ${session.reservationId} still processing after the horizon`);
      continue;
    }
    const cards = cardsOn(world, session.guestId, session.reservationId);
    const shown = (answer.body.paymentMethod as { last4?: string } | undefined)?.last4;
    const mine = ledger.cards
      .filter((submission) => submission.sessionId === session.id && cards.includes(submission.last4))
      .map((submission) => submission.last4);
    if (status === 'succeeded' && (!shown || !cards.includes(shown))) {
      found(
        'session_agrees_with_platform',
        session.operation,
        `session of ${session.reservationId} says succeeded with …${String(shown)}, the platform holds ${cards.join(', ') || 'no card'}`,
      );
    } else if (status !== 'succeeded' && mine.length > 0) {
      found(
        'session_agrees_with_platform',
        session.operation,
        `session of ${session.reservationId} says ${status} while its card …${mine.join(', …')} is on the reservation`,
      );
    } else if (status === 'succeeded' && shown && mine.length > 0 && !mine.includes(shown)) {
      found(
        'session_agrees_with_platform',
        session.operation,
        `session of ${session.reservationId} shows …${shown}, its own card on the platform is …${mine.join(', …')}`,
      );
    }
  }
  return violations;
}

/** Waits until no session reads `processing` (or the horizon and its sweep have passed), as the invariants are read after it. */
export async function awaitSettledSessions(balancer: Balancer, ledger: Ledger, limitMs: number): Promise<void> {
  const reader = new Random(0, 8);
  const giveUpAt = Date.now() + limitMs;
  while (Date.now() < giveUpAt) {
    let open = 0;
    for (const session of ledger.sessions) {
      const answer = await balancer.send(reader, 'GET', `/checkout/sessions/${session.id}`);
      if (answer.status !== 200 || answer.body.status === 'processing') open += 1;
    }
    if (open === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
