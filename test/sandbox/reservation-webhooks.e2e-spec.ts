import { startTestSandbox, webhookReceiver, type JsonBody, type SandboxClient } from './sandbox-helpers';

const NOW = 1_750_000_000_000;
const PET_FEE = { title: 'Pet fee', amount: 30, normalType: 'AFE', secondIdentifier: 'PET' };

/**
 * The platform's reservation and folio webhooks as the sandbox sends them (docs/sandbox.md): a v2
 * reservation event on every change of a reservation, in either reading of where it names itself,
 * the folio's events, and of the payments events only those known to fire.
 */
describe('sandbox reservation, folio and payments webhooks', () => {
  let client: SandboxClient;
  let receiver: Awaited<ReturnType<typeof webhookReceiver>>;

  beforeAll(async () => {
    client = await startTestSandbox({ clock: () => NOW, paymentVisibilityDelayMs: 0, chargeSettleDelayMs: 500 });
    receiver = await webhookReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await client.sandbox.stop();
  });
  beforeEach(() => {
    client.control.reset();
    client.forgetToken();
    client.control.setCalendarWebhooks([]);
    client.control.setWebhookTarget(receiver.url);
    receiver.received.length = 0;
  });

  /** The bodies sent since the last call, in the order sent, once all were answered. */
  let seen = 0;
  async function sent(): Promise<JsonBody[]> {
    await client.control.webhooksSettled();
    const deliveries = client.control.webhookDeliveries.slice(seen);
    seen = client.control.webhookDeliveries.length;
    const bodies = new Map(receiver.received.map((entry) => [entry.headers['svix-id'], JSON.parse(entry.body)]));
    return deliveries.map((delivery) => bodies.get(delivery.id));
  }
  beforeEach(() => {
    seen = client.control.webhookDeliveries.length;
  });
  const names = (bodies: JsonBody[]) => bodies.map((body) => body.event ?? body.eventType);
  const reservation = (guestEmail = 'olivia@example.com') =>
    client.control.createReservation({ listingId: 'lst-seaside', guestEmail, balanceDue: 300, currency: 'USD' }).reservationId;

  it('names a v2 reservation event at `event`, the id at data.reservation.id, by default (the form of every published payload)', async () => {
    const id = reservation();
    const [created, folio] = await sent();
    expect(created).toEqual({
      event: 'reservation.created.v2',
      publishedAt: new Date(NOW).toISOString(),
      data: { reservation: { id, status: 'confirmed', confirmationCode: expect.any(String) } },
    });
    expect(folio).toEqual({ event: 'guest-folio.created', reservationId: id, currency: 'USD', hostPayout: 300, totalTaxes: 0 });
  });

  it('names it at `eventType`, the id at data.reservationId, under the other reading', async () => {
    client.control.setReadings({ reservationWebhookEventField: 'eventType' });
    const id = reservation();
    client.control.cancelReservation(id);
    const bodies = await sent();
    expect(bodies.map((body) => [body.eventType, body.event, body.data?.reservationId])).toEqual([
      ['reservation.created.v2', undefined, id],
      [undefined, 'guest-folio.created', undefined],
      ['reservation.updated.v2', undefined, id],
    ]);
    expect(bodies[2].data).toEqual({ reservationId: id, status: 'canceled', confirmationCode: expect.any(String) });
  });

  it('sends reservation.updated.v2 on every change: an item, a card, its charge, a status; the folio event when items or money change', async () => {
    const id = reservation();
    await sent();
    expect((await client.api(`/v1/invoice-items/reservation/${id}`, { body: PET_FEE })).status).toBe(200);
    expect(names(await sent())).toEqual(['reservation.updated.v2', 'guest-folio.updated']);

    await client.payWithCard(id, '4242424242424242');
    expect(names(await sent())).toEqual(['reservation.updated.v2']);

    client.control.advanceClock(1_000);
    const charged = await sent();
    expect(names(charged)).toEqual(['payments.received', 'reservation.updated.v2', 'guest-folio.updated']);
    expect(charged[2]).toMatchObject({ reservationId: id, hostPayout: 330 });

    const canceled = await client.api(`/v1/reservations-v3/${id}/status`, { method: 'PUT', body: { status: 'canceled' } });
    expect(canceled.status).toBe(200);
    expect(names(await sent())).toEqual(['reservation.updated.v2']);
    expect((await client.api(`/v1/reservations-v3/${id}/status`, { method: 'PUT', body: { status: 'canceled' } })).status).toBe(422);
    expect(await sent()).toEqual([]);
  });

  it('sends payments.failed for a failed charge, and no payments event for one that waits for authentication', async () => {
    const failing = reservation('failing@example.com');
    const authenticating = reservation('authenticating@example.com');
    await client.payWithCard(failing, '4000000000000341');
    await client.payWithCard(authenticating, '4000002760003184');
    await sent();
    client.control.advanceClock(1_000);
    const bodies = await sent();
    const about = (id: string) =>
      names(bodies.filter((body) => [body.payment?.reservationId, body.data?.reservation?.id, body.reservationId].includes(id)));
    expect(about(failing)).toEqual(['payments.failed', 'reservation.updated.v2']);
    expect(about(authenticating)).toEqual(['reservation.updated.v2']);
    expect(names(bodies).filter((name) => String(name).startsWith('payments.'))).toEqual(['payments.failed']);
  });
});
