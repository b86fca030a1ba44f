import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import request from 'supertest';
import { RedisKeys } from '../../src/redis/redis-keys';
import { cardBody, checkoutClient, freshReservation } from '../utils/checkout-client';
import { waitUntil, watchRedis } from '../utils/redis-server';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';
import { testRedisUrl } from '../utils/test-config';

/** Records anonymous traffic may make in Redis this hour, every replica together: a flood's first few networks. */
const CEILING = 12;
const MISSES_PER_ADDRESS = 2;
const FLOOD_ADDRESSES = Array.from({ length: 30 }, (_, i) => `198.18.40.${i + 1}`);

const madeUpReservationId = () => `res-${randomBytes(9).toString('base64url')}`;
const open = (url: string, address: string, reservationId: string, email: string) =>
  request(url).post('/checkout/sessions').set('X-Forwarded-For', address).send({ reservationId, email });

/**
 * docs/product-spec.md §7: with Redis set never to evict, a flood of fresh addresses filling it
 * would fail every write, the journal's too. Anonymous traffic makes at most
 * ANONYMOUS_RECORDS_PER_HOUR records in Redis; past it a fresh network is counted in the memory of
 * the replica it reaches, where its limits still hold.
 */
describe('anonymous traffic meets its own ceiling on Redis records', () => {
  let world: SandboxedApps;

  beforeAll(async () => {
    world = await startSandboxedApps(2, {
      env: {
        TRUST_PROXY: '1',
        ANONYMOUS_RECORDS_PER_HOUR: String(CEILING),
        CHECKOUT_RESERVATION_MISSES_PER_IP: `${MISSES_PER_ADDRESS}/h`,
        UPSTREAM_RATE_LIMITS: '100/s,1000/m,20000/h',
      },
      sandbox: { rateLimits: { perSecond: 100, perMinute: 1000, perHour: 20000 }, paymentVisibilityDelayMs: 0 },
    });
  });

  afterAll(() => world.close());

  const limitRecords = async () => (await world.apps[0].redisKeys()).filter((key) => key.includes('{limit:'));

  it('a flood of guesses from fresh addresses leaves at most the ceiling in Redis; limits hold and a guest still pays', async () => {
    const reachedUntil = async () =>
      ((await request(world.apps[0].url).get('/health').expect(200)).body as { anonymousRecordsCeilingReachedUntil: string | null })
        .anonymousRecordsCeilingReachedUntil;
    expect(await reachedUntil()).toBeNull();
    const answers = [];
    for (const [index, address] of FLOOD_ADDRESSES.entries()) {
      answers.push((await open(world.apps[index % 2].url, address, madeUpReservationId(), 'someone@example.com')).status);
    }
    expect(answers).toEqual(FLOOD_ADDRESSES.map(() => 404));
    const records = await limitRecords();
    expect(records.length).toBeGreaterThan(0);
    expect(records.length).toBeLessThanOrEqual(CEILING);

    // A network past the ceiling, counted in one replica's memory, still meets its allowance of misses.
    const late = FLOOD_ADDRESSES[FLOOD_ADDRESSES.length - 2];
    const url = world.apps[FLOOD_ADDRESSES.length % 2].url;
    expect((await open(url, late, madeUpReservationId(), 'someone@example.com')).status).toBe(404);
    const refused = await open(url, late, madeUpReservationId(), 'someone@example.com');
    expect(refused.status).toBe(429);
    expect(refused.body.detail).toMatch(/reservations not found/i);

    // A real guest from a fresh address opens a session and pays, past the ceiling.
    const { reservationId, guestEmail } = freshReservation(world);
    const session = await open(world.apps[1].url, '198.18.41.200', reservationId, guestEmail);
    expect(session.status).toBe(201);
    const paid = await checkoutClient(world.apps[1].url).submit(session.body.id as string, cardBody());
    expect(paid.body.status).toBe('succeeded');

    expect((await limitRecords()).length).toBeLessThanOrEqual(CEILING);
    const metrics = (await request(world.apps[0].url).get('/metrics')).text;
    expect(metrics).toMatch(/^anonymous_records_ceiling_reached 1$/m);
    expect(metrics).toMatch(/^anonymous_records_total\{where="here"\} [1-9]/m);
    expect(Date.parse((await reachedUntil()) ?? '')).toBeGreaterThan(Date.now());
  });
});

describe('the ceiling under it costs no round trip', () => {
  let world: SandboxedApps;

  beforeAll(async () => {
    world = await startSandboxedApps(1, { env: { TRUST_PROXY: '1', UPSTREAM_RATE_LIMITS: '100/s,1000/m,20000/h' } });
  });

  afterAll(() => world.close());

  it('a network with its records, and a fresh one while the replica holds the right to make them, never ask the shared count', async () => {
    const url = world.apps[0].url;
    const countKey = new RedisKeys(world.apps[0].config.redis.keyPrefix).anonymousRecords();
    // The first records made take a block of rights (a hundredth of the default ceiling) from the count.
    expect((await open(url, '198.18.42.1', madeUpReservationId(), 'someone@example.com')).status).toBe(404);
    const admin = new Redis(testRedisUrl());
    await expect(admin.get(countKey).finally(() => admin.disconnect())).resolves.toBe('200');

    const watch = await watchRedis(testRedisUrl());
    const marker = new Redis(testRedisUrl());
    try {
      expect((await open(url, '198.18.42.1', madeUpReservationId(), 'someone@example.com')).status).toBe(404);
      expect((await open(url, '198.18.42.2', madeUpReservationId(), 'someone@example.com')).status).toBe(404);
      // Redis shows its commands in the order it ran them: once the marker is seen, so is every command of the requests.
      const markerKey = `${countKey}:marker`;
      await marker.get(markerKey);
      await waitUntil(
        () => Promise.resolve(watch.commands.some((args) => args.includes(markerKey))),
        5_000,
        'the monitor to show the requests',
      );
      expect(watch.commands.filter((args) => args.includes(countKey))).toEqual([]);
    } finally {
      watch.stop();
      marker.disconnect();
    }
  });
});
