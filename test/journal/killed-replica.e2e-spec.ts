import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { isRetryable } from '../../src/common/errors/error-code';
import { FOLLOW_UP_GRACE_MS } from '../../src/journal/follow-ups';
import { JournalSweep } from '../../src/journal/journal-sweep';
import { bookingClient, newGuest, stay } from '../booking/booking-client';
import { CARDS, cardBody, checkoutClient, freshReservation, SCALED_DOWN_WRITES } from '../utils/checkout-client';
import { waitUntil } from '../utils/redis-server';
import { killableReplicas } from '../utils/killable-replicas';
import { SandboxedApps } from '../utils/sandboxed-apps';

/**
 * A replica killed (SIGKILL) at a payment's worst moments: its attach on the wire, and between a
 * booking's card and its confirmation. The guest's retries on the other replica are only told "try
 * again" (retryable, with Retry-After) until the outcome, and the sweep confirms the paid booking.
 * The replica runs the built service in its own process.
 */
const ENV = SCALED_DOWN_WRITES;

describe('a replica killed mid-payment', () => {
  let world: SandboxedApps;
  const replicas = killableReplicas(ENV);
  const doomedReplica = replicas.doomedReplica;
  beforeAll(() => {
    world = replicas.world();
  });

  it('seed 1609: killed while its attach waits at the platform, the same key on the other replica is told "try again", then succeeded', async () => {
    const doomed = await doomedReplica();
    const reservation = freshReservation(world, 300);
    const sessionId = (await checkoutClient(doomed.url).createSession(reservation.reservationId, reservation.guestEmail).expect(201)).body
      .id as string;
    // The platform answers its writes and its reads slowly: the sweep's own read of the attach is slow too.
    world.sandbox.control.setRouteDelay('paymentMethods', 1_500);
    const before = world.sandbox.control.counters.requests.paymentMethods ?? 0;
    const key = randomUUID();
    void checkoutClient(doomed.url)
      .submit(sessionId, cardBody(CARDS.noThreeDs), key)
      .then(
        () => undefined,
        () => undefined,
      );
    await waitUntil(
      () => Promise.resolve((world.sandbox.control.counters.requests.paymentMethods ?? 0) > before),
      10_000,
      'the attach to reach the platform',
    );
    doomed.child.kill('SIGKILL');
    await doomed.exited;

    const site = checkoutClient(world.apps[0].url);
    const told: request.Response[] = [];
    await waitUntil(
      async () => {
        const answer = await site.submit(sessionId, cardBody(CARDS.noThreeDs), key);
        told.push(answer);
        if (!isRetryable(answer.body.code)) return true;
        // As the site's client does: after the Retry-After the answer carries.
        await new Promise((resolve) => setTimeout(resolve, Number(answer.headers['retry-after']) * 1000));
        return false;
      },
      45_000,
      'an answer that is not "try again"',
    );
    const waits = told.slice(0, -1);
    // The dead replica's lease and key claim last a moment: the first presses meet them.
    expect(waits.length).toBeGreaterThan(0);
    for (const answer of waits) {
      expect(isRetryable(answer.body.code)).toBe(true);
      expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    const final = told[told.length - 1];
    expect(final.status).toBe(200);
    expect(final.body).toMatchObject({ status: 'succeeded', paymentMethod: { last4: '4242' } });
    expect(
      world.sandbox.control.getPaymentMethods(reservation.guestId).filter((method) => method.reservationId === reservation.reservationId),
    ).toHaveLength(1);
  }, 90_000);

  it("killed between a booking's card and its confirmation: the other replica's sweep confirms it, once", async () => {
    const doomed = await doomedReplica();
    const booking = bookingClient(doomed.url);
    const quote = await booking.quote({ listingId: 'lst-seaside', ...stay(190, 2), guestsCount: 2 }).expect(201);
    const booked = await booking.book({ quoteId: quote.body.id, guest: newGuest() }).expect(201);
    const reservationId = booked.body.booking.reservationId as string;
    const confirmations = () => world.sandbox.control.requestLog.filter((entry) => entry.route === 'reservationStatus');
    const mark = confirmations().length;
    // The doomed replica's own confirmation fails at the platform; the replica dies as that answer comes.
    world.sandbox.control.forceStatus('reservationStatus', 503, { times: 1 });
    void booking.submit(booked.body.id as string, cardBody(CARDS.noThreeDs)).then(
      () => undefined,
      () => undefined,
    );
    await waitUntil(() => Promise.resolve(confirmations().length > mark), 15_000, "the doomed replica's confirmation");
    doomed.child.kill('SIGKILL');
    await doomed.exited;
    expect(world.sandbox.control.getReservation(reservationId)).toMatchObject({ status: 'reserved' });

    await waitUntil(
      async () => {
        for (const clock of world.clocks) clock.advance(FOLLOW_UP_GRACE_MS + 6_000);
        await world.apps[0].app.get(JournalSweep).sweepOnce();
        return world.sandbox.control.getReservation(reservationId)?.status === 'confirmed';
      },
      30_000,
      "the surviving replica's confirmation",
    );
    expect(confirmations().filter((entry) => entry.status === 200)).toHaveLength(1);
    const session = await checkoutClient(world.apps[0].url)
      .getSession(booked.body.id as string)
      .expect(200);
    expect(session.body.booking.status).toBe('confirmed');
  }, 90_000);
});
