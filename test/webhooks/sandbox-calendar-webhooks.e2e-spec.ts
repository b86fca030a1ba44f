import request from 'supertest';
import { SandboxClient } from '../sandbox/sandbox-helpers';
import { waitUntil } from '../utils/redis-server';
import { startSandboxedApps, type SandboxedApps } from '../utils/sandboxed-apps';

const SECRET = `whsec_${Buffer.from('calendar webhooks key, 32 bytes!').toString('base64')}`;
const DAY_MS = 86_400_000;
const day = (ahead: number) => new Date(Date.now() + ahead * DAY_MS).toISOString().slice(0, 10);

/**
 * The sandbox sends the platform's calendar webhooks when its calendar changes (an owner's block, a
 * reservation made or canceled on the platform), signed like its other webhooks, and the service's
 * cached calendar follows them on every replica: here the replica that did not receive the webhook.
 */
describe("the sandbox's calendar webhooks refresh the service's cached calendar", () => {
  let world: SandboxedApps;
  let platform: SandboxClient;

  beforeAll(async () => {
    world = await startSandboxedApps(2, { env: { GUESTY_WEBHOOK_SECRET: SECRET }, sandbox: { webhookSecret: SECRET } });
    world.sandbox.control.setWebhookTarget(`${world.apps[0].url}/webhooks/guesty`);
    platform = new SandboxClient(world.sandbox);
  });
  afterAll(() => world.close());

  const unavailable = async (from: string, to: string): Promise<string[]> => {
    const answer = await request(world.apps[1].url).get('/checkout/listings/lst-city/calendar').query({ from, to }).expect(200);
    return (answer.body.days as { date: string; available: boolean }[]).filter((entry) => !entry.available).map((entry) => entry.date);
  };
  const deliveredSince = async (count: number) => {
    await world.sandbox.control.webhooksSettled();
    return world.sandbox.control.webhookDeliveries.slice(count).map(({ type, status }) => ({ type, status }));
  };

  it('calendar.updated.v2 alone: nights the owner blocks show unavailable on the other replica', async () => {
    world.sandbox.control.setCalendarWebhooks(['calendar.updated.v2']);
    const [from, to] = [day(210), day(214)];
    expect(await unavailable(from, to)).toEqual([]);
    const sent = world.sandbox.control.webhookDeliveries.length;

    world.sandbox.control.blockNights('lst-city', day(211), day(212));

    expect(await deliveredSince(sent)).toEqual([{ type: 'calendar.updated.v2', status: 204 }]);
    await waitUntil(
      async () => JSON.stringify(await unavailable(from, to)) === JSON.stringify([day(211), day(212)]),
      2_500,
      'the blocked nights on the replica that did not receive the webhook',
    );
  });

  it('listing.calendar.updated alone: a reservation made on the platform, then canceled, takes and frees its nights', async () => {
    world.sandbox.control.setCalendarWebhooks(['listing.calendar.updated']);
    const [from, to] = [day(240), day(244)];
    expect(await unavailable(from, to)).toEqual([]);
    const sent = world.sandbox.control.webhookDeliveries.length;

    // Another channel books on the platform: a quote, a guest and a confirmed reservation.
    const quote = await platform.api('/v1/quotes', {
      body: { listingId: 'lst-city', checkInDateLocalized: day(241), checkOutDateLocalized: day(243), guestsCount: 1, source: 'airbnb' },
    });
    const guest = await platform.api('/v1/guests-crud', { body: { firstName: 'Ana', lastName: 'Other', email: 'ana.other@example.com' } });
    const made = await platform.api('/v1/reservations-v3/quote', {
      body: { quoteId: quote.body._id, status: 'confirmed', guestId: guest.body._id },
    });
    expect(made.status).toBe(200);
    // The platform announces the reservation and its folio too, before the calendar's change.
    expect(await deliveredSince(sent)).toEqual([
      { type: 'reservation.created.v2', status: 204 },
      { type: 'guest-folio.created', status: 204 },
      { type: 'listing.calendar.updated', status: 204 },
    ]);
    await waitUntil(
      async () => JSON.stringify(await unavailable(from, to)) === JSON.stringify([day(241), day(242)]),
      2_500,
      'the booked nights on the other replica',
    );

    const canceled = await platform.api(`/v1/reservations-v3/${made.body.reservationId}/status`, {
      method: 'PUT',
      body: { status: 'canceled' },
    });
    expect(canceled.status).toBe(200);
    expect(await deliveredSince(sent + 3)).toEqual([
      { type: 'reservation.updated.v2', status: 204 },
      { type: 'listing.calendar.updated', status: 204 },
    ]);
    await waitUntil(async () => (await unavailable(from, to)).length === 0, 2_500, 'the freed nights on the other replica');
  });
});
