import Redis from 'ioredis';
import request from 'supertest';
import { GuestyClient } from '../../src/upstream/guesty-client';
import { RedisKeys } from '../../src/redis/redis-keys';
import { SANDBOX_CLIENT_ID } from '../../sandbox/types';
import { waitUntil } from '../utils/redis-server';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';
import { testRedisUrl } from '../utils/test-config';

// High limits: these tests are about tokens, not the outbound budget.
const PLENTY = {
  env: { UPSTREAM_RATE_LIMITS: '1000/s,10000/m,100000/h' },
  sandbox: { rateLimits: { perSecond: 1000, perMinute: 10_000, perHour: 100_000 } },
};

describe('one access token shared by every replica', () => {
  let world: SandboxedApps;
  let redis: Redis;

  beforeEach(async () => {
    world = await startSandboxedApps(2, PLENTY);
    redis = new Redis(testRedisUrl());
  });

  afterEach(async () => {
    await world.close();
    redis.disconnect();
  });

  const client = (index: number) => world.apps[index].app.get(GuestyClient);
  const tokenKeys = () => new RedisKeys(world.env.REDIS_KEY_PREFIX).accessToken(SANDBOX_CLIENT_ID);

  it('mints exactly once for 200 concurrent cold requests across two instances', async () => {
    const calls = Array.from({ length: 200 }, (_, i) => client(i % 2).getReservation('res-checkout-usd'));
    const reservations = await Promise.all(calls);
    expect(reservations.every((reservation) => reservation?.id === 'res-checkout-usd')).toBe(true);
    expect(world.sandbox.control.counters.tokensMinted).toBe(1);
  });

  it('keeps the token encrypted in Redis, under a key that names neither the client id nor the secret', async () => {
    await client(0).getReservation('res-checkout-usd');
    const keys = await world.apps[0].redisKeys();
    expect(keys).toContain(tokenKeys().token);
    const everything = (await Promise.all(keys.map(async (key) => `${key}=${(await redis.get(key).catch(() => '')) ?? ''}`))).join('\n');
    expect(everything).not.toContain(SANDBOX_CLIENT_ID);
    expect(everything).not.toContain('sandbox-client-secret');
    expect(everything).not.toMatch(/eyJ[A-Za-z0-9_-]+\./);
  });

  it('replaces a revoked token with exactly one new mint across instances', async () => {
    await Promise.all([client(0).getReservation('res-checkout-usd'), client(1).getReservation('res-checkout-usd')]);
    world.sandbox.control.revokeAllTokens();
    const after = await Promise.all(Array.from({ length: 40 }, (_, i) => client(i % 2).getReservation('res-checkout-eur')));
    expect(after.every((reservation) => reservation?.id === 'res-checkout-eur')).toBe(true);
    expect(world.sandbox.control.counters.tokensMinted).toBe(2);
  });

  it('answers a permanent 403 with upstream_forbidden after at most one extra mint, never a loop', async () => {
    await client(0).getReservation('res-checkout-usd');
    world.sandbox.control.forceStatus('listing', 403, {
      body: { message: "You don't have permission to access, please contact Guesty support" },
    });
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => request(world.apps[i % 2].url).get(`/checkout/listings/lst-forbidden-${i}`)),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(50).fill(502));
    expect(answers.every((answer) => answer.body.code === 'upstream_forbidden')).toBe(true);
    expect(world.sandbox.control.counters.tokensMinted).toBeLessThanOrEqual(2);
  });

  it('refuses to mint at the reserve with a clear 503 and an error log line', async () => {
    const now = Date.now();
    await redis.set(tokenKeys().mintLedger, JSON.stringify([now - 4000, now - 3000, now - 2000, now - 1000]), 'PX', 60_000);
    const answer = await request(world.apps[0].url).get('/checkout/listings/lst-city');
    expect(answer.status).toBe(503);
    expect(answer.body.code).toBe('token_budget_exhausted');
    expect(Number(answer.headers['retry-after'])).toBeGreaterThan(80_000);
    expect(world.sandbox.control.counters.tokensMinted).toBe(0);
    // Nest's Logger is process-wide: with two apps in one test process, either capture may hold the line.
    expect(
      world.apps
        .flatMap((app) => app.logs.entries())
        .some((entry) => entry.level === 'error' && String(entry.msg).includes('token budget exhausted')),
    ).toBe(true);
  });

  it('refreshes ahead of expiry once across instances when the clock reaches the window', async () => {
    await Promise.all([client(0).getReservation('res-checkout-usd'), client(1).getReservation('res-checkout-usd')]);
    expect(world.sandbox.control.counters.tokensMinted).toBe(1);
    // 29 minutes before expiry: inside every replica's refresh window, the old token still valid.
    const ahead = 24 * 3600_000 - 29 * 60_000;
    for (const clock of world.clocks) clock.advance(ahead);
    world.sandbox.control.advanceClock(ahead);
    const during = Array.from({ length: 30 }, (_, i) => client(i % 2).getReservation('res-checkout-usd'));
    await Promise.all(during);
    await waitUntil(() => Promise.resolve(world.sandbox.control.counters.tokensMinted === 2), 5000, 'the refresh');
    await Promise.all(Array.from({ length: 30 }, (_, i) => client(i % 2).getReservation('res-checkout-eur')));
    expect(world.sandbox.control.counters.tokensMinted).toBe(2);
    expect(world.sandbox.control.counters.rateLimited).toBe(0);
  });

  it("writes a replica's copy back when Redis lost the token, instead of minting", async () => {
    await Promise.all([client(0).getReservation('res-checkout-usd'), client(1).getReservation('res-checkout-usd')]);
    await redis.del(tokenKeys().token, tokenKeys().mintLedger);
    await waitUntil(async () => (await redis.exists(tokenKeys().token, tokenKeys().mintLedger)) === 2, 3000, 'the write-back');
    await Promise.all(Array.from({ length: 20 }, (_, i) => client(i % 2).getReservation('res-checkout-eur')));
    expect(world.sandbox.control.counters.tokensMinted).toBe(1);
  });
});
