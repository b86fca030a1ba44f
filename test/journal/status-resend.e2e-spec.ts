import { JournalSweep } from '../../src/journal/journal-sweep';
import { bookingClient, newGuest, stay } from '../booking/booking-client';
import { CARDS, cardBody, checkoutClient, SCALED_DOWN_WRITES } from '../utils/checkout-client';
import { waitUntil } from '../utils/redis-server';
import { killableReplicas } from '../utils/killable-replicas';
import { SandboxedApps } from '../utils/sandboxed-apps';

/**
 * docs/product-spec.md §6: a status write is repeatable, so a confirmation whose answer was lost is
 * settled by reading the reservation's status, never by waiting out the settle horizon (kept at its
 * default here). The replica that sent it is killed; the other confirms the paid booking within
 * 30 s of its clock, and the platform changes the status once.
 */
const ENV = { ...SCALED_DOWN_WRITES, WRITE_SETTLE_SECONDS: '120' };
/** How far the surviving replica's clock may move before the booking is confirmed. */
const WITHIN_MS = 30_000;
const STEP_MS = 5_000;

describe('a paid booking whose confirmation was lost with its replica', () => {
  let world: SandboxedApps;
  const replicas = killableReplicas(ENV);
  beforeAll(() => {
    world = replicas.world();
  });

  it.each([
    ['its first try cut before the platform acted', false, 190],
    ['its answer lost after the platform confirmed it', true, 200],
  ])(
    '%s: the other replica confirms it within 30 s, one status change',
    async (_case, afterHandling, offsetDays) => {
      const doomed = await replicas.doomedReplica();
      const booking = bookingClient(doomed.url);
      const quote = await booking.quote({ listingId: 'lst-seaside', ...stay(offsetDays, 2), guestsCount: 2 }).expect(201);
      const booked = await booking.book({ quoteId: quote.body.id, guest: newGuest() }).expect(201);
      const reservationId = booked.body.booking.reservationId as string;
      const control = world.sandbox.control;
      const statusWrites = () => control.requestLog.filter((entry) => entry.route === 'reservationStatus');
      const mark = statusWrites().length;
      control.dropConnection('reservationStatus', { times: 1, afterHandling });
      void booking.submit(booked.body.id as string, cardBody(CARDS.noThreeDs)).then(
        () => undefined,
        () => undefined,
      );
      await waitUntil(() => Promise.resolve(statusWrites().length > mark), 15_000, "the doomed replica's confirmation");
      doomed.child.kill('SIGKILL');
      await doomed.exited;

      let moved = 0;
      await waitUntil(
        async () => {
          await world.apps[0].app.get(JournalSweep).sweepOnce();
          const session = await checkoutClient(world.apps[0].url).getSession(booked.body.id as string);
          if (session.body.booking?.status === 'confirmed') return true;
          world.clocks[0].advance(STEP_MS);
          moved += STEP_MS;
          return moved > WITHIN_MS;
        },
        60_000,
        "the surviving replica's confirmation",
      );
      expect(moved).toBeLessThanOrEqual(WITHIN_MS);
      expect(control.getReservation(reservationId)).toMatchObject({ status: 'confirmed' });
      // One change: the first try's when the platform acted on it, else the one the other replica sent.
      const answered = statusWrites()
        .slice(mark)
        .filter((entry) => entry.status === 200);
      expect(answered).toHaveLength(afterHandling ? 0 : 1);
    },
    90_000,
  );
});
