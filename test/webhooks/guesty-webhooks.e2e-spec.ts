import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import { cardBody, CARDS, checkoutClient, freshReservation } from '../utils/checkout-client';
import { waitUntil } from '../utils/redis-server';
import { startSandboxedApps, type SandboxedApps } from '../utils/sandboxed-apps';

const SECRET = `whsec_${Buffer.from('a test webhook key of 32 bytes!!').toString('base64')}`;

function signed(body: string, options: { id?: string; at?: Date; secret?: string } = {}) {
  const id = options.id ?? `msg_${randomUUID()}`;
  const at = options.at ?? new Date();
  const signature = new Webhook(options.secret ?? SECRET).sign(id, at, body);
  return {
    'content-type': 'application/json',
    'svix-id': id,
    'svix-timestamp': String(Math.floor(at.getTime() / 1000)),
    'svix-signature': signature,
  };
}

describe("POST /webhooks/guesty: the platform's signed webhooks", () => {
  let world: SandboxedApps;

  beforeAll(async () => {
    world = await startSandboxedApps(2, { env: { GUESTY_WEBHOOK_SECRET: SECRET }, sandbox: { webhookSecret: SECRET } });
  });
  afterAll(() => world.close());

  const post = (headers: Record<string, string>, body: string, replica = 0) =>
    request(world.apps[replica].url).post('/webhooks/guesty').set(headers).send(body);
  const webhookKeys = async () => (await world.apps[0].redisKeys()).filter((key) => key.includes('webhook:'));
  const reservationReads = () => world.sandbox.control.requestLog.filter((entry) => entry.route === 'reservation').length;

  describe('calendar webhooks, as the platform publishes them', () => {
    const DAY_MS = 86_400_000;
    const day = (ahead: number) => new Date(Date.now() + ahead * DAY_MS).toISOString().slice(0, 10);
    const calendarReads = () => world.sandbox.control.requestLog.filter((entry) => entry.route === 'calendar').length;
    const read = (replica: number, from: string, to: string) =>
      request(world.apps[replica].url).get('/checkout/listings/lst-city/calendar').query({ from, to }).expect(200);
    const published = (name: string) =>
      JSON.parse(readFileSync(path.join(__dirname, `../../docs/upstream-reference/examples/${name}.json`), 'utf8')).example;

    async function warm(from: string, to: string): Promise<number> {
      await read(0, from, to);
      await read(1, from, to);
      return calendarReads();
    }

    it('calendar.updated.v2 (no event field, recognised by its shape) drops the named months only, for every replica', async () => {
      const [from, to] = [day(200), day(202)];
      const [otherFrom, otherTo] = [day(260), day(262)];
      await warm(otherFrom, otherTo);
      const before = await warm(from, to);
      const body = JSON.stringify({
        ...published('calendar-updated-v2'),
        listingId: 'lst-city',
        accountId: 'acc-1',
        currency: 'EUR',
        dateRange: { start: from, end: to },
      });
      expect(body).not.toContain('"event"');
      expect((await post(signed(body), body, 1)).status).toBe(204);
      await refreshedOn(0, from, to, before + monthsOf(from, to));
      // The months named are read again from the platform once; the others stay cached.
      await read(1, from, to);
      await read(0, otherFrom, otherTo);
      expect(calendarReads()).toBe(before + monthsOf(from, to));
    });

    it('the legacy listing.calendar.updated drops the months of the days it lists', async () => {
      const [from, to] = [day(300), day(301)];
      const before = await warm(from, to);
      const example = published('listing-calendar-updated');
      const body = JSON.stringify({
        ...example,
        calendar: [
          { ...example.calendar[0], listingId: 'lst-city', date: from },
          { ...example.calendar[0], listingId: 'lst-city', date: to },
        ],
      });
      expect((await post(signed(body), body, 0)).status).toBe(204);
      await refreshedOn(1, from, to, before + monthsOf(from, to));
    });

    /** The other replica sees the platform's change within a second (its own copy lives no longer); the bound leaves room for a loaded machine. */
    async function refreshedOn(replica: number, from: string, to: string, reads: number): Promise<void> {
      await waitUntil(
        async () => (await read(replica, from, to)) && calendarReads() === reads,
        2_500,
        'the calendar re-read after the webhook',
      );
    }

    function monthsOf(from: string, to: string): number {
      return (Number(to.slice(0, 4)) - Number(from.slice(0, 4))) * 12 + Number(to.slice(5, 7)) - Number(from.slice(5, 7)) + 1;
    }
  });

  it('refuses a missing, bad or stale signature with a 401 problem, and changes nothing', async () => {
    const body = JSON.stringify({ event: 'payments.received', payment: { reservationId: 'res-checkout-usd' } });
    const before = { keys: await webhookKeys(), reads: reservationReads() };
    const missing = await post({ 'content-type': 'application/json' }, body);
    const bad = await post(signed(body, { secret: `whsec_${Buffer.from('another key, 32 bytes long......').toString('base64')}` }), body);
    const stale = await post(signed(body, { at: new Date(Date.now() - 6 * 60_000) }), body);
    const tampered = await post(signed(body), body.replace('res-checkout-usd', 'res-checkout-eur'));
    for (const answer of [missing, bad, stale, tampered]) {
      expect(answer.status).toBe(401);
      expect(answer.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(answer.body).toMatchObject({ status: 401, code: 'unauthorized' });
    }
    expect(await webhookKeys()).toEqual(before.keys);
    expect(reservationReads()).toBe(before.reads);
    expect(world.apps[0].logs.lines.join('\n')).not.toContain(SECRET.slice(6));
  });

  it('accepts an unknown event with 204 and ignores it, and a replayed id only once', async () => {
    const body = JSON.stringify({ event: 'listing.someday', listingId: 'lst-seaside' });
    const headers = signed(body);
    expect((await post(headers, body)).status).toBe(204);
    expect((await post(headers, body, 1)).status).toBe(204);
    const metrics = await request(world.apps[1].url).get('/metrics');
    expect(metrics.text).toMatch(/webhook_events_total\{type="listing.someday",outcome="duplicate"\} 1/);
  });

  it('a payments webhook refreshes what payment-status serves, seen from another replica', async () => {
    const { reservationId, guestEmail } = freshReservation(world, 300);
    const site = checkoutClient(world.apps[1].url);
    const session = (await site.createSession(reservationId, guestEmail)).body;
    expect((await site.submit(session.id, cardBody(CARDS.noThreeDs))).body.status).toBe('succeeded');
    // The platform charges a moment later; the webhook the sandbox sends makes replica 0 re-read.
    world.sandbox.control.setWebhookTarget(`${world.apps[0].url}/webhooks/guesty`);
    try {
      const first = await request(world.apps[1].url).get(`/checkout/sessions/${session.id}/payment-status`);
      expect(['scheduled', 'paid']).toContain(first.body.state);
      world.sandbox.control.advanceClock(2_000);
      await world.sandbox.control.webhooksSettled();
      expect(world.sandbox.control.webhookDeliveries.filter((d) => d.type === 'payments.received').map((d) => d.status)).toContain(204);
      // Within PAYMENT_STATUS_REFRESH_SECONDS, replica 1 now serves the refreshed answer.
      let answer = await request(world.apps[1].url).get(`/checkout/sessions/${session.id}/payment-status`);
      for (let i = 0; i < 50 && answer.body.state !== 'paid'; i += 1) {
        await new Promise((resolve) => setImmediate(resolve));
        answer = await request(world.apps[1].url).get(`/checkout/sessions/${session.id}/payment-status`);
      }
      expect(answer.body).toMatchObject({ state: 'paid', amountPaid: 300, amountDue: 0 });
    } finally {
      world.sandbox.control.setWebhookTarget(undefined);
    }
  });
});

describe('POST /webhooks/guesty without GUESTY_WEBHOOK_SECRET', () => {
  it('does not exist (404)', async () => {
    const world = await startSandboxedApps(1);
    try {
      const body = '{}';
      const answer = await request(world.apps[0].url).post('/webhooks/guesty').set(signed(body)).send(body);
      expect(answer.status).toBe(404);
    } finally {
      await world.close();
    }
  });
});
