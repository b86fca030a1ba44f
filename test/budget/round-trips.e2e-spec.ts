import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import request from 'supertest';
import { SharedAccessTokens } from '../../src/auth/shared-access-tokens';
import { JournalSweep } from '../../src/journal/journal-sweep';
import { MetricsService } from '../../src/metrics/metrics.service';
import { RedisKeys } from '../../src/redis/redis-keys';
import { SandboxRoute } from '../../sandbox/types';
import { bookingClient, newGuest, stay } from '../booking/booking-client';
import { CARDS, cardBody, checkoutClient, freshReservation } from '../utils/checkout-client';
import { figures } from '../utils/load';
import { testRedisUrl } from '../utils/test-config';
import { waitUntil } from '../utils/redis-server';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';

/**
 * The round-trip budget (docs/benchmarks.md, "Round trips per flow"): each flow a guest makes, run
 * warm on one replica whose background loops (the sweep, the token's write-back) are stopped, costs
 * at most the Redis round trips and Open API calls its row allows. A change that adds one fails
 * here, not in a bench run months later.
 */
const NOT_OPEN_API: readonly SandboxRoute[] = [
  'token',
  'tokenize',
  'issuerPage',
  'issuerAction',
  'sdkScript',
  'sdkForm',
  'chargeAuthPage',
  'chargeAuthAction',
];
const CATALOGUE = [{ code: 'late-checkout', normalType: 'CF', title: 'Late checkout', amount: 40 }];

/** The table's rows: flow → [Redis round trips, Open API calls], read from docs/benchmarks.md. */
function budgetTable(): Map<string, { redis: number; calls: number }> {
  const text = readFileSync(join(__dirname, '../../docs/benchmarks.md'), 'utf8');
  const section = text.slice(text.indexOf('### Round trips per flow'));
  const rows = new Map<string, { redis: number; calls: number }>();
  for (const line of section.split('\n').slice(1)) {
    if (line.startsWith('#')) break;
    const cells = /^\| ([^|]+?) \| (\d+) \| (\d+) \|/.exec(line);
    if (cells) rows.set(cells[1], { redis: Number(cells[2]), calls: Number(cells[3]) });
  }
  return rows;
}

describe('the round-trip budget of each flow (docs/benchmarks.md)', () => {
  let world: SandboxedApps;
  let admin: Redis;
  const table = budgetTable();
  const measured: string[] = [];
  const url = () => world.apps[0].url;
  const redisCommands = async () => (await world.apps[0].app.get(MetricsService).redisCommands.get()).values[0]?.value ?? 0;
  const openApiCalls = () =>
    Object.entries(world.sandbox.control.counters.requests)
      .filter(([route]) => !NOT_OPEN_API.includes(route as SandboxRoute))
      .reduce((sum, [, count]) => sum + (count ?? 0), 0);

  /** Runs `flow` and answers what it cost, once its replica has nothing left to send (the work it does after answering included). */
  async function cost(flow: () => Promise<void>): Promise<{ redis: number; calls: number }> {
    const [redisBefore, callsBefore] = [await redisCommands(), openApiCalls()];
    await flow();
    // Work a flow leaves behind after its answer (a lookup's place given back) ends within a few
    // milliseconds; the count is read once it has stood still for 250 ms.
    let last = await redisCommands();
    let still = 0;
    await waitUntil(
      async () => {
        const now = await redisCommands();
        still = now === last ? still + 1 : 0;
        last = now;
        return still >= 10;
      },
      10_000,
      "the replica's Redis commands to stand still",
    );
    return { redis: last - redisBefore, calls: openApiCalls() - callsBefore };
  }

  function withinBudget(flow: string, spent: { redis: number; calls: number }): void {
    const budget = table.get(flow);
    measured.push(`${flow}: ${spent.redis} Redis round trips, ${spent.calls} Open API calls (budget ${budget?.redis} / ${budget?.calls})`);
    expect({ flow, budgeted: budget !== undefined }).toEqual({ flow, budgeted: true });
    expect({ flow, redis: spent.redis <= budget!.redis, calls: spent.calls <= budget!.calls, spent }).toMatchObject({
      flow,
      redis: true,
      calls: true,
    });
  }

  beforeAll(async () => {
    world = await startSandboxedApps(1, {
      env: {
        CHECKOUT_EXTRAS: JSON.stringify(CATALOGUE),
        CHECKOUT_IP_RATE_LIMIT: '100000/m',
        CHECKOUT_IP_READ_LIMIT: '100000/m',
        CHECKOUT_CARD_ATTEMPTS: '1000/h',
        BOOKING_HOLDS_PER_IP: '1000/h',
        UPSTREAM_RATE_LIMITS: '1000/s,60000/m,1000000/h',
        RESERVATION_WRITE_SPACING_MS: '0',
      },
      sandbox: { paymentVisibilityDelayMs: 0, rateLimits: { perSecond: 1000, perMinute: 60_000, perHour: 1_000_000 } },
    });
    admin = new Redis(testRedisUrl());
    // Only the flows send commands: the sweep and the token's write-back are the replica's own.
    await world.apps[0].app.get(JournalSweep).onApplicationShutdown();
    world.apps[0].app.get(SharedAccessTokens).onApplicationShutdown();
    // Warm: the token, the listing's provider, the network's records, the code paths.
    for (let i = 0; i < 2; i += 1) {
      const reservation = freshReservation(world, 300);
      const opened = await checkoutClient(url()).createSession(reservation.reservationId, reservation.guestEmail).expect(201);
      await checkoutClient(url())
        .submit(opened.body.id as string, cardBody(CARDS.noThreeDs))
        .expect(200);
    }
  });
  afterAll(async () => {
    figures(`round trips per flow\n${measured.join('\n')}`);
    await admin?.quit();
    await world?.close();
  });

  it('a session open and a card without 3-D Secure', async () => {
    const reservation = freshReservation(world, 300);
    let sessionId = '';
    withinBudget(
      'session open',
      await cost(async () => {
        const opened = await checkoutClient(url()).createSession(reservation.reservationId, reservation.guestEmail).expect(201);
        sessionId = opened.body.id as string;
      }),
    );
    withinBudget(
      'card, no 3-D Secure',
      await cost(async () => {
        await checkoutClient(url()).submit(sessionId, cardBody(CARDS.noThreeDs)).expect(200);
      }),
    );
    withinBudget(
      'extras',
      await cost(async () => {
        await request(url())
          .post(`/checkout/sessions/${sessionId}/extras`)
          .set('Idempotency-Key', randomUUID())
          .send({ items: [{ code: 'late-checkout' }] })
          .expect(201);
      }),
    );
  });

  it('a card through 3-D Secure: the press, then the return', async () => {
    const reservation = freshReservation(world, 300);
    const opened = await checkoutClient(url()).createSession(reservation.reservationId, reservation.guestEmail).expect(201);
    const sessionId = opened.body.id as string;
    let authUrl = '';
    withinBudget(
      'card with 3-D Secure: the press',
      await cost(async () => {
        const pressed = await checkoutClient(url()).submit(sessionId, cardBody(CARDS.threeDs)).expect(200);
        authUrl = pressed.body.nextAction.redirectUrl as string;
      }),
    );
    const issuer = await fetch(`${authUrl}/authenticate`, { method: 'POST', redirect: 'manual' });
    const returnUrl = new URL(issuer.headers.get('location')!);
    withinBudget(
      'card with 3-D Secure: the return',
      await cost(async () => {
        const landed = await fetch(`${url()}${returnUrl.pathname}${returnUrl.search}`, { redirect: 'manual' });
        expect(new URL(landed.headers.get('location')!).searchParams.get('status')).toBe('succeeded');
      }),
    );
  });

  it('a booking: the quote and the held reservation, then the card and its confirmation', async () => {
    const booking = bookingClient(url());
    let sessionId = '';
    let reservationId = '';
    withinBudget(
      'booking: quote and book',
      await cost(async () => {
        const quote = await booking.quote({ listingId: 'lst-seaside', ...stay(240, 2), guestsCount: 2 }).expect(201);
        const booked = await booking.book({ quoteId: quote.body.id, guest: newGuest() }).expect(201);
        sessionId = booked.body.id as string;
        reservationId = booked.body.booking.reservationId as string;
      }),
    );
    const due = new RedisKeys(world.apps[0].config.redis.keyPrefix).followUps().due;
    withinBudget(
      'booking: card and confirmation',
      await cost(async () => {
        await booking.submit(sessionId, cardBody(CARDS.noThreeDs)).expect(200);
        await waitUntil(
          async () =>
            world.sandbox.control.getReservation(reservationId)?.status === 'confirmed' &&
            (await admin.zrange(due, 0, -1)).every((member) => !member.includes(reservationId)),
          10_000,
          'the confirmation to end',
        );
      }),
    );
  });
});
