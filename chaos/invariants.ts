import Redis from 'ioredis';
import type { Balancer } from './balancer';
import { isRetryable } from '../src/common/errors/error-code';
import { RedisKeys } from '../src/redis/redis-keys';
import type { Ledger, Told } from './ledger';
import { Random } from './random';
import { CHAOS_KEY_PREFIX, type ChaosWorld } from './world';

/** What must hold whatever the faults, each checked against the platform's own record (the sandbox), never our Redis. */
export const INVARIANTS = [
  'one_card_per_reservation',
  'one_reservation_per_quote',
  'extras_line_once',
  'told_failed_but_landed',
  'settled_within_horizon',
  'session_agrees_with_platform',
  'told_retry_never_succeeded',
  'paid_but_not_confirmed',
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

/**
 * Every answer says whether to try again (docs/product-spec.md §3): a retryable code carries
 * Retry-After, a refusal never does; and a guest who pressed again as told reached an answer.
 */
function retryRuleBroken(told: Told[], outcome: string): string | undefined {
  const wrong = told.find(
    (entry) =>
      entry.code !== undefined &&
      ((isRetryable(entry.code) && entry.retryAfterSeconds === undefined) ||
        (entry.verdict === 'refused' && entry.retryAfterSeconds !== undefined)),
  );
  if (wrong) return `answered ${wrong.said} ${wrong.retryAfterSeconds === undefined ? 'without' : 'with'} Retry-After`;
  if (outcome === 'open' && told.some((entry) => isRetryable(entry.code))) return 'told to try again, and no press ever got an answer';
  return undefined;
}

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

  const everyTold = [
    ...ledger.cards.map((entry) => ({ ...entry, what: `card …${entry.last4} on ${entry.reservationId}` })),
    ...ledger.extras.map((entry) => ({ ...entry, what: `"${entry.title}" on ${entry.reservationId}` })),
    ...ledger.bookings.map((entry) => ({ ...entry, what: `booking by ${entry.email}` })),
  ];
  for (const entry of everyTold) {
    const broken = retryRuleBroken(entry.told, entry.outcome);
    if (broken) found('told_retry_never_succeeded', entry.operation, `${entry.what}: ${broken}: ${story(entry.told)}`);
    if (!ledger.storeLost() && entry.told.some((told) => told.verdict === 'lost')) {
      found(
        'session_agrees_with_platform',
        entry.operation,
        `${entry.what}: a session or quote vanished while Redis kept its data: ${story(entry.told)}`,
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
    // `lost`: Redis lost the quote with the booking; the guest was told to start again, not that nothing was booked.
    if (request.outcome !== 'landed' && request.outcome !== 'lost' && live.length > 0) {
      found(
        'told_failed_but_landed',
        request.operation,
        `${live.map((r) => `${r._id} ${r.status}`).join(', ')} holds the guest's dates; the guest was told ${story(request.told)}`,
      );
    }
    if (request.outcome === 'open') found('settled_within_horizon', request.operation, `booking still open: ${story(request.told)}`);
    // A booking whose card is on file is confirmed on the platform (BOOKING_CONFIRMATION=instant), whatever failed between them.
    for (const reservation of reservations) {
      const paid = cardsOn(world, guest._id as string, reservation._id).length > 0;
      if (paid && reservation.status !== 'confirmed') {
        found(
          'paid_but_not_confirmed',
          request.operation,
          `${reservation._id} holds a card and is ${reservation.status}; the guest was told ${story(request.told)}; ${await confirmationDue(world, reservation._id)}`,
        );
      }
    }
  }

  const reader = new Random(0, 7);
  for (const session of ledger.sessions) {
    const answer = await balancer.send(reader, 'GET', `/checkout/sessions/${session.id}`);
    // A Redis that lost its data lost sessions with it: the guest was told to start again.
    if (answer.code === 'session_not_found' && ledger.storeLost()) continue;
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
      const gone = answer.code === 'session_not_found' && ledger.storeLost();
      if (!gone && (answer.status !== 200 || answer.body.status === 'processing')) open += 1;
    }
    if (open === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/**
 * Waits until every booking whose card is on the platform is confirmed there (or the limit passed):
 * a confirmation the platform dropped is tried again by the sweep (docs/write-journal.md, "Follow-ups").
 */
export async function awaitConfirmedBookings(world: ChaosWorld, ledger: Ledger, limitMs: number): Promise<void> {
  const giveUpAt = Date.now() + limitMs;
  const unconfirmed = () =>
    ledger.bookings.some((request) => {
      const guest = world.sandbox.control.getGuestsByEmail(request.email)[0];
      if (!guest) return false;
      return world.sandbox.control
        .getGuestReservations(guest._id as string)
        .some((reservation) => reservation.status !== 'confirmed' && cardsOn(world, guest._id as string, reservation._id).length > 0);
    });
  while (Date.now() < giveUpAt && unconfirmed()) await new Promise((resolve) => setTimeout(resolve, 500));
}

/** Where the store keeps a paid booking's confirmation, for a failing seed's reader: due when, or not there. */
async function confirmationDue(world: ChaosWorld, reservationId: string): Promise<string> {
  const redis = new Redis(world.redis.primary.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    const due = new RedisKeys(CHAOS_KEY_PREFIX).followUps().due;
    const members = await redis.zrange(due, 0, -1, 'WITHSCORES');
    for (let index = 0; index < members.length; index += 2) {
      if (members[index].includes(reservationId))
        return `its confirmation is due in Redis ${Math.round((Number(members[index + 1]) - Date.now()) / 1000)} s from now`;
    }
    return 'Redis holds no confirmation due for it';
  } catch (error) {
    return `Redis could not be read (${error instanceof Error ? error.message : String(error)})`;
  } finally {
    redis.disconnect();
  }
}
