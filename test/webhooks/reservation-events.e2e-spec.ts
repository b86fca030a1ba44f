import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { signWebhook } from '../../sandbox/runtime/webhooks';
import { SandboxClient } from '../sandbox/sandbox-helpers';
import { awaitCharge } from '../utils/charges';
import { CARDS, cardBody, checkoutClient, freshReservation } from '../utils/checkout-client';
import { waitUntil } from '../utils/redis-server';
import { startSandboxedApps, type SandboxedApps } from '../utils/sandboxed-apps';

const SETTLE_DELAY_MS = 500;
const PET_FEE = { title: 'Pet fee', amount: 30, normalType: 'AFE', secondIdentifier: 'PET' };

/**
 * The platform's reservation and folio webhooks say a reservation changed (docs/upstream.md,
 * "Webhooks of today"): what payment-status serves of it, and what its checkout session shows,
 * are read again, on every replica, instead of waiting out PAYMENT_STATUS_REFRESH_SECONDS.
 */
describe('reservation and folio webhooks refresh what a session shows of its reservation', () => {
  let world: SandboxedApps;
  let platform: SandboxClient;

  beforeAll(async () => {
    // A refresh window no test outlasts: an answer that changes within it was read again.
    world = await startSandboxedApps(2, {
      webhooks: true,
      env: { PAYMENT_STATUS_REFRESH_SECONDS: '300' },
      sandbox: { paymentVisibilityDelayMs: 0, chargeSettleDelayMs: SETTLE_DELAY_MS },
    });
    platform = new SandboxClient(world.sandbox);
  });
  afterAll(() => world.close());

  /** Only the webhooks a test signs itself reach the service (the sandbox's own are switched off). */
  function deliver(payload: Record<string, unknown>, replica = 0) {
    const body = JSON.stringify(payload);
    const headers = signWebhook(world.sandbox.control.webhookSecret, `msg_${randomUUID()}`, Math.floor(Date.now() / 1000), body);
    return request(world.apps[replica].url).post('/webhooks/guesty').set(headers).send(body).expect(204);
  }
  const paymentStatus = (sessionId: string, replica = 1) =>
    request(world.apps[replica].url).get(`/checkout/sessions/${sessionId}/payment-status`).expect(200);
  const reads = () => world.sandbox.control.requestLog.length;

  /** A session on a fresh reservation of 300 with no card yet, its payment status read (and cached) on replica 1. */
  async function watchedReservation() {
    world.sandbox.control.setWebhookTarget(undefined);
    const reservation = freshReservation(world, 300);
    const session = await checkoutClient(world.apps[1].url).createSession(reservation.reservationId, reservation.guestEmail).expect(201);
    expect((await paymentStatus(session.body.id)).body).toMatchObject({ amountDue: 300 });
    // The platform's folio changes with no payments event: an item the host adds there.
    const added = await platform.api(`/v1/invoice-items/reservation/${reservation.reservationId}`, { body: PET_FEE });
    expect(added.status).toBe(200);
    const before = reads();
    expect((await paymentStatus(session.body.id)).body).toMatchObject({ amountDue: 300 });
    expect(reads()).toBe(before);
    return { ...reservation, sessionId: session.body.id as string };
  }

  it.each([
    [
      'its name in event, the id at data.reservation.id',
      (id: string) => ({ event: 'reservation.updated.v2', data: { reservation: { id } } }),
    ],
    [
      'its name in eventType, the id at data.reservationId',
      (id: string) => ({ eventType: 'reservation.updated.v2', data: { reservationId: id } }),
    ],
  ])('reservation.updated.v2 (%s): the next payment-status read, on the other replica, re-reads the platform', async (_shape, payload) => {
    const { reservationId, sessionId } = await watchedReservation();
    await deliver(payload(reservationId), 0);
    const before = reads();
    expect((await paymentStatus(sessionId, 1)).body).toMatchObject({ amountDue: 330 });
    expect(reads()).toBeGreaterThan(before);
  });

  it.each(['guest-folio.created', 'guest-folio.updated'])(
    '%s with the reservation id at the top: the next payment-status read shows the folio as it is now',
    async (event) => {
      const { reservationId, sessionId } = await watchedReservation();
      await deliver({ event, reservationId, totalTaxes: 0 }, 0);
      expect((await paymentStatus(sessionId, 1)).body).toMatchObject({ amountDue: 330 });
    },
  );

  it.each(['event', 'eventType'] as const)(
    "the sandbox's own webhooks, named at `%s`: a change of the reservation shows in payment-status on the other replica",
    async (reservationWebhookEventField) => {
      const { reservationId, sessionId } = await watchedReservation();
      world.sandbox.control.setReadings({ reservationWebhookEventField });
      world.sandbox.control.setWebhookTarget(`${world.apps[0].url}/webhooks/guesty`);
      try {
        const sent = world.sandbox.control.webhookDeliveries.length;
        world.sandbox.control.cancelReservation(reservationId);
        await world.sandbox.control.webhooksSettled();
        const delivered = world.sandbox.control.webhookDeliveries.slice(sent).map(({ type, status }) => ({ type, status }));
        // No payments or folio event: only the reservation's own says it changed (its calendar's go too).
        expect(delivered.filter(({ type }) => !type.includes('calendar'))).toEqual([{ type: 'reservation.updated.v2', status: 204 }]);
        expect((await paymentStatus(sessionId, 1)).body).toMatchObject({ amountDue: 330 });
        const metrics = await request(world.apps[0].url).get('/metrics').expect(200);
        expect(metrics.text).toMatch(/webhook_events_total\{type="reservation.updated.v2",outcome="accepted"\} [1-9]/);
      } finally {
        world.sandbox.control.setReadings({ reservationWebhookEventField: 'event' });
      }
    },
  );

  it.each([
    ['reservation.updated.v2', (id: string) => ({ event: 'reservation.updated.v2', data: { reservation: { id } } })],
    ['guest-folio.updated', (id: string) => ({ event: 'guest-folio.updated', reservationId: id })],
  ])('a charge that failed on the platform shows on the paid session after %s, without a payment-status read', async (_event, payload) => {
    world.sandbox.control.setWebhookTarget(undefined);
    const { reservationId, guestEmail } = freshReservation(world, 300);
    const site = checkoutClient(world.apps[1].url);
    const session = await site.createSession(reservationId, guestEmail).expect(201);
    world.sandbox.control.holdCharges();
    await site.submit(session.body.id, cardBody(CARDS.processorError)).expect(200);
    expect((await paymentStatus(session.body.id)).body.state).toBe('scheduled');
    expect((await site.getSession(session.body.id).expect(200)).body).toMatchObject({ status: 'succeeded', charge: { next: 'nothing' } });
    // The platform's charge fails; no payments webhook reaches the service, only the reservation's.
    world.sandbox.control.holdCharges(false);
    await awaitCharge(world, reservationId, 'FAILED', SETTLE_DELAY_MS);
    expect((await paymentStatus(session.body.id)).body.state).toBe('scheduled');

    await deliver(payload(reservationId), 0);
    await waitUntil(
      async () => (await checkoutClient(world.apps[0].url).getSession(session.body.id)).body.charge?.next === 'another_card',
      2_500,
      'the session asking for another card after the failed charge',
    );
    expect((await site.getSession(session.body.id).expect(200)).body).toMatchObject({
      status: 'succeeded',
      lastError: { code: 'charge_failed' },
      charge: { next: 'another_card' },
    });
    expect((await paymentStatus(session.body.id)).body.state).toBe('failed');
  });
});
