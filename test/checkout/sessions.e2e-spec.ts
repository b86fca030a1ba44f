import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { CardsOnFile } from '../../src/sessions/cards-on-file';
import { RedisKeys } from '../../src/redis/redis-keys';
import { checkoutClient, freshReservation, sessionsStoredFor, upstreamRequests } from '../utils/checkout-client';
import { waitUntil, watchRedis } from '../utils/redis-server';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';
import { testRedisUrl } from '../utils/test-config';

describe('checkout sessions', () => {
  let world: SandboxedApps;

  beforeAll(async () => {
    world = await startSandboxedApps(2, { env: { CHECKOUT_SESSION_TTL_SECONDS: '600' } });
  });

  afterAll(() => world.close());

  const site = (index = 0) => checkoutClient(world.apps[index].url);

  it('creates a session from the reservation, with amount and currency from its balance, readable on every replica', async () => {
    const reservation = freshReservation(world, 321.5);
    const created = await site(0).createSession(reservation.reservationId, `  ${reservation.guestEmail.toUpperCase()} `).expect(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^cs_[A-Za-z0-9_-]{32}$/),
      status: 'requires_payment_method',
      reservationId: reservation.reservationId,
      listingId: 'lst-seaside',
      paymentProviderId: 'pp-seaside',
      amount: 321.5,
      currency: 'USD',
      expiresAt: expect.any(String),
    });
    const elsewhere = await site(1).getSession(created.body.id).expect(200);
    expect(elsewhere.body).toEqual(created.body);
    expect(created.headers['cache-control']).toBe('no-store');
  });

  it('ignores an amount or currency sent by the browser', async () => {
    const reservation = freshReservation(world, 99);
    const res = await site(0)
      .createSession(reservation.reservationId, reservation.guestEmail)
      .send({ reservationId: reservation.reservationId, email: reservation.guestEmail, amount: 1, currency: 'XXX' });
    expect(res.status).toBe(400);
    expect((res.body.errors as { field: string }[]).map((e) => e.field).sort()).toEqual(['amount', 'currency']);
  });

  it('answers a wrong email exactly as an unknown reservation (no enumeration)', async () => {
    const reservation = freshReservation(world);
    const wrongEmail = await site(0).createSession(reservation.reservationId, 'someone-else@example.com').expect(404);
    const unknown = await site(0).createSession('res-does-not-exist', 'someone-else@example.com').expect(404);
    const strip = (body: Record<string, unknown>) => ({ ...body, requestId: undefined });
    expect(strip(wrongEmail.body)).toEqual(strip(unknown.body));
    expect(wrongEmail.body.code).toBe('reservation_not_found');
  });

  it('answers 404 for an unknown or malformed session id without asking the upstream', async () => {
    const before = upstreamRequests(world);
    await site(0).getSession('cs_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA').expect(404);
    const malformed = await site(0).getSession('../../etc').expect(404);
    expect(malformed.body.code).toMatch(/not_found/);
    expect(upstreamRequests(world)).toBe(before);
  });

  it('refuses a reservation with nothing left to pay', async () => {
    const res = await site(0).createSession('res-paid', 'paula@example.com').expect(409);
    expect(res.body.code).toBe('invalid_state');
  });

  it('refuses a listing whose payment provider is inactive with a clear problem, and keeps no session', async () => {
    const res = await site(0).createSession('res-closed', 'liam@example.com');
    expect(res.status).toBe(502);
    expect(res.body.code).toBe('payment_account_unavailable');
    expect(await sessionsStoredFor(world, 'res-closed')).toBe(0);
  });

  it('answers already_paid on a reservation with our card on file even while its payment provider is inactive', async () => {
    const reservation = freshReservation(world, 200, 'lst-closed');
    // As the attach records it once the platform shows the card (docs/product-spec.md §6.5).
    await world.apps[0].app.get(CardsOnFile).record(reservation.reservationId, { paymentMethodId: 'pm-on-file' });
    const res = await site(1).createSession(reservation.reservationId, reservation.guestEmail);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('already_paid');
    expect(await sessionsStoredFor(world, reservation.reservationId)).toBe(0);
  });

  /** A session opened on a fresh reservation, with every Redis command it sent, in the order Redis ran them. */
  async function openedWatched() {
    const reservation = freshReservation(world);
    const keys = new RedisKeys(world.apps[0].config.redis.keyPrefix);
    const watch = await watchRedis(testRedisUrl());
    const marker = new Redis(testRedisUrl());
    try {
      const created = await site(0).createSession(reservation.reservationId, reservation.guestEmail).expect(201);
      // Redis shows its commands in the order it ran them: once the marker is seen, so is every command of the request.
      const markerKey = `${keys.prefix}monitor-marker:${randomUUID()}`;
      await marker.get(markerKey);
      const { commands } = watch;
      await waitUntil(() => Promise.resolve(commands.some((args) => args.includes(markerKey))), 5_000, 'the monitor to show the request');
      return { reservation, keys, commands, sessionKey: keys.checkoutSession(RedisKeys.sessionRef(created.body.id as string)) };
    } finally {
      watch.stop();
      marker.disconnect();
    }
  }

  it('writes the session in the one Redis step that reads the card on file and counts the opening', async () => {
    const { reservation, keys, commands, sessionKey } = await openedWatched();
    const cardKey = keys.reservationWrites(reservation.reservationId).card;
    const tag = `{reservation:${reservation.reservationId}}`;
    // Each command that names the reservation's keys or the session's, as the keys it names.
    const touching = commands
      .filter((args) => args.some((arg) => arg === sessionKey || arg.includes(tag)))
      .map((args) => args.filter((arg) => arg.startsWith(keys.prefix)));
    // Before it, the lookup's step read what the service knows of the reservation (spec §7).
    const knownKey = keys.knownReservation(reservation.reservationId);
    expect(touching).toEqual([[knownKey, ...touching[0].slice(1)], expect.arrayContaining([cardKey, sessionKey])]);
    expect(touching[0].filter((key) => key.includes(tag))).toEqual([knownKey]);
  });

  it('gives the lookup’s place back in that same step, not in a round trip of its own', async () => {
    const { keys, commands, sessionKey } = await openedWatched();
    const naming = commands.filter((args) => args.some((arg) => arg.startsWith(keys.prefix) && arg.endsWith(':reservation-places:w')));
    // Taken in the lookup's step, given back in the session's write: two commands, no ZREM alone.
    expect(naming).toHaveLength(2);
    expect(naming[1]).toContain(sessionKey);
    // Given back: the place the lookup took is gone from the network's places once the session is open.
    const [placesKey] = naming[1].filter((arg) => arg.endsWith(':reservation-places:w'));
    const place = naming[1][naming[1].indexOf('releaseSlot') + 3];
    expect(naming[0]).toContain(place);
    const redis = new Redis(testRedisUrl());
    try {
      await expect(redis.zscore(placesKey, place)).resolves.toBeNull();
    } finally {
      redis.disconnect();
    }
  });

  it('forgets the session once its TTL has passed', async () => {
    const reservation = freshReservation(world);
    const created = await site(0).createSession(reservation.reservationId, reservation.guestEmail).expect(201);
    for (const clock of world.clocks) clock.advance(601_000);
    try {
      await site(1).getSession(created.body.id).expect(404);
      const submit = await site(0).submit(created.body.id, { token: 'tok_whatever' });
      expect(submit.status).toBe(404);
      expect(submit.body.code).toBe('session_not_found');
    } finally {
      for (const clock of world.clocks) clock.advance(-601_000);
    }
  });
});
