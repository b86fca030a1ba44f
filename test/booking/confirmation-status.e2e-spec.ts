import request from 'supertest';
import { JournalSweep } from '../../src/journal/journal-sweep';
import { CARDS, cardBody } from '../utils/checkout-client';
import { onSurface } from '../utils/surface';
import { waitUntil } from '../utils/redis-server';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';
import { bookingClient, newGuest, stay } from './booking-client';

/** Past the follow-up's retry (15 s) and its grace: the sweep finds a confirmation due again. */
const PAST_RETRY_MS = 16_000;

/**
 * docs/product-spec.md §3.1: a booking's confirmation reads the reservation's status first. A
 * reservation the property ended between the card and the confirmation is not confirmed: nothing is
 * sent, the session says how it ended and what became of the card, and the operator is told. A status
 * read that fails sends nothing and leaves the confirmation due. Runs on both surfaces.
 */
describe('booking: the confirmation reads the reservation’s status first', () => {
  let world: SandboxedApps;

  beforeAll(async () => {
    world = await startSandboxedApps(1, {
      env: {
        RESERVATION_WRITE_SPACING_MS: '200',
        CHECKOUT_IP_RATE_LIMIT: '10000/m',
        BOOKING_HOLDS_PER_IP: '1000/h',
        CHECKOUT_IP_READ_LIMIT: '10000/m',
        // Bookings follow one another unspaced (a guest's writes wait for no spacing): more than the platform's second carries.
        UPSTREAM_RATE_LIMITS: '100/s,6000/m,100000/h',
      },
      sandbox: { paymentVisibilityDelayMs: 0, rateLimits: { perSecond: 100, perMinute: 6000, perHour: 100000 } },
    });
  });

  afterEach(() => world.sandbox.control.clearFaults());
  afterAll(() => world.close());

  const site = () => bookingClient(world.apps[0].url);
  const control = () => world.sandbox.control;
  const confirmationsSince = (mark: number) =>
    control()
      .requestLog.slice(mark)
      .filter((entry) => entry.route === 'reservationStatus');
  const followUpsDue = async () => [...(await world.apps[0].redisContents()).keys()].filter((key) => key.endsWith('follow-ups:due'));

  async function booking(daysAhead: number) {
    const quote = await site()
      .quote({ listingId: 'lst-seaside', ...stay(daysAhead, 2), guestsCount: 2 })
      .expect(201);
    const guest = newGuest();
    const booked = await site().book({ quoteId: quote.body.id, guest }).expect(201);
    return { sessionId: booked.body.id as string, reservationId: booked.body.booking.reservationId as string, guest };
  }

  it.each([
    { ended: 'canceled' as const, days: 210 },
    { ended: 'declined' as const, days: 216 },
  ])(
    'the property $ended the held reservation between the card and the confirmation: no confirmation is sent, the session says so, the operator is told',
    async ({ ended, days }) => {
      const { sessionId, reservationId, guest } = await booking(days);
      const mark = control().requestLog.length;
      // The property ends it the moment the platform takes the card, before the confirmation can read it.
      void control()
        .whenActed('paymentMethods')
        .then(() => control().cancelReservation(reservationId, ended));
      const paid = await site().submit(sessionId, cardBody(CARDS.noThreeDs)).expect(200);
      expect(paid.body.status).toBe('succeeded');

      await waitUntil(
        async () => (await site().session(sessionId)).body.booking?.status !== 'reserved',
        15_000,
        'the confirmation to find the reservation ended',
      );
      const session = await site().session(sessionId).expect(200);
      expect(session.body).toMatchObject({
        status: 'succeeded',
        paymentMethod: { last4: expect.any(String) },
        booking: { status: 'canceled', notice: expect.stringContaining('not confirmed') },
      });
      expect(session.body.booking.notice).toContain('card stays on file');

      expect(confirmationsSince(mark)).toEqual([]);
      expect(control().getReservation(reservationId)).toMatchObject({ status: ended });
      expect(await followUpsDue()).toEqual([]);

      const metrics = await request(world.apps[0].url).get('/metrics').expect(200);
      expect(metrics.text).toMatch(new RegExp(`booking_confirmations_withheld_total\\{status="${ended}"\\} 1\\b`));
      const told = world.apps[0].logs.entries().filter((entry) => entry.reservationId === reservationId && entry.platformStatus === ended);
      expect(told).toHaveLength(1);
      expect(told[0].msg).toMatch(/ended on the platform before its confirmation/);
      expect(JSON.stringify(told[0])).not.toContain(guest.email);
    },
  );

  it.each([
    {
      how: 'the platform does not answer it (503)',
      fault: () => control().forceStatus('reservation', 503),
      loud: null,
    },
    {
      how: 'the platform answers a status the reference does not publish',
      // The reservation as the read answers it, with a status outside the reference's enum.
      fault: (reservationId: string) =>
        control().forceStatus('reservation', 200, {
          body: onSurface({
            current: [{ _id: reservationId, status: 'on_hold', confirmationCode: 'SBX-ONHOLD' }],
            legacy: { _id: reservationId, status: 'on_hold', confirmationCode: 'SBX-ONHOLD', listingId: 'lst-seaside', guestId: 'g-1' },
          }),
        }),
      loud: onSurface({ current: 'getReservationsV3', legacy: 'getReservation' }),
    },
  ])(
    'a confirmation whose status read fails ($how) sends nothing, stays due, and confirms once when the sweep tries again',
    async ({ fault, loud }) => {
      const { sessionId, reservationId } = await booking(loud ? 228 : 222);
      const mark = control().requestLog.length;
      // Every read of the reservation fails from the moment the platform takes the card.
      void control()
        .whenActed('paymentMethods')
        .then(() => fault(reservationId));
      await site().submit(sessionId, cardBody(CARDS.noThreeDs)).expect(200);

      await waitUntil(
        () =>
          Promise.resolve(
            world.apps[0].logs
              .entries()
              .some((entry) => entry.reservationId === reservationId && /status could not be read/.test(String(entry.msg))),
          ),
        15_000,
        'the confirmation’s status read to fail',
      );
      expect(confirmationsSince(mark)).toEqual([]);
      expect((await site().session(sessionId)).body.booking.status).toBe('reserved');
      expect(await followUpsDue()).toHaveLength(1);
      if (loud) {
        // Never guessed: the operator sees the read and what came back, as for any answer the product cannot rely on.
        const health = await request(world.apps[0].url).get('/health').expect(200);
        expect(health.body.status).toBe('platform_answers_unexpected');
        expect(health.body.platformAnswersUnexpected).toContainEqual(
          expect.objectContaining({ operation: loud, found: 'with an unknown status "on_hold"' }),
        );
      }

      control().clearFaults();
      await waitUntil(
        async () => {
          world.clocks[0].advance(PAST_RETRY_MS);
          await world.apps[0].app.get(JournalSweep).sweepOnce();
          return control().getReservation(reservationId)?.status === 'confirmed';
        },
        20_000,
        'the sweep’s confirmation',
      );
      const session = await site().session(sessionId).expect(200);
      expect(session.body.booking.status).toBe('confirmed');
      expect(confirmationsSince(mark).map((entry) => entry.status)).toEqual([200]);
      expect(await followUpsDue()).toEqual([]);
    },
  );
});
