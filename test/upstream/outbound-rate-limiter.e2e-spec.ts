import Redis from 'ioredis';
import { ConfigService } from '@nestjs/config';
import { DomainError } from '../../src/common/errors/domain-error';
import { AppConfig } from '../../src/config/app-config';
import { Priority, OutboundRateLimiter } from '../../src/upstream/outbound-rate-limiter';
import { MetricsService } from '../../src/metrics/metrics.service';
import { REQUEST_PATH_REDIS_OPTIONS, RedisKeyValueStore } from '../../src/redis/redis-key-value-store';
import { RedisKeys } from '../../src/redis/redis-keys';
import { testConfig, testKeyPrefix, testRedisUrl } from '../utils/test-config';

interface Replica {
  limiter: OutboundRateLimiter;
  metrics: MetricsService;
}

/** Several limiters on one Redis and prefix, each with its own connection: replicas of one deployment. */
async function replicas(count: number, limits: string, connect = connectToTestRedis): Promise<Replica[]> {
  const prefix = testKeyPrefix();
  prefixes.push(prefix);
  const config = new ConfigService<AppConfig, true>(testConfig({ UPSTREAM_RATE_LIMITS: limits, REDIS_KEY_PREFIX: prefix }));
  const created: Replica[] = [];
  for (let i = 0; i < count; i += 1) {
    const store = await connect();
    stores.push(store);
    const metrics = new MetricsService();
    created.push({ limiter: new OutboundRateLimiter(store, new RedisKeys(prefix), config, metrics), metrics });
  }
  return created;
}

async function connectToTestRedis(): Promise<RedisKeyValueStore> {
  const store = RedisKeyValueStore.connect(testRedisUrl());
  await store.whenConnected(3_000);
  return store;
}

/** Nothing listens on port 1. A short disconnect timeout: ioredis's timer for the already-closed socket would outlive the run. */
function connectToNowhere(): Promise<RedisKeyValueStore> {
  const client = new Redis('redis://127.0.0.1:1', { ...REQUEST_PATH_REDIS_OPTIONS, disconnectTimeout: 50 });
  client.on('error', () => undefined);
  return Promise.resolve(new RedisKeyValueStore(client));
}

const prefixes: string[] = [];
const stores: RedisKeyValueStore[] = [];

afterAll(async () => {
  const admin = new Redis(testRedisUrl());
  for (const prefix of prefixes) {
    const keys = await admin.keys(`${prefix}*`);
    if (keys.length > 0) await admin.del(...keys);
  }
  admin.disconnect();
  await Promise.all(stores.map((store) => store.close()));
});

type Outcome = { grantedAt: number } | { refusedAt: number; error: unknown };

async function attempt(limiter: OutboundRateLimiter, priority: Priority, deadline: number): Promise<Outcome> {
  try {
    await limiter.acquire(priority, deadline);
    return { grantedAt: Date.now() };
  } catch (error) {
    return { refusedAt: Date.now(), error };
  }
}

/** The most grants any rolling window of `windowMs` holds. */
function busiestWindow(times: number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let busiest = 0;
  for (let start = 0, end = 0; start < sorted.length; start += 1) {
    while (end < sorted.length && sorted[end] < sorted[start] + windowMs) end += 1;
    busiest = Math.max(busiest, end - start);
  }
  return busiest;
}

function expectRateLimited(outcome: Outcome): DomainError {
  if (!('refusedAt' in outcome)) throw new Error('expected a refusal, the slot was granted');
  expect(outcome.error).toBeInstanceOf(DomainError);
  const error = outcome.error as DomainError;
  expect(error.code).toBe('rate_limited');
  expect(error.status).toBe(503);
  expect(error.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  return error;
}

describe('OutboundRateLimiter (shared outbound budget on real Redis)', () => {
  it('queues a burst across replicas without ever exceeding a rolling window, and refuses past the deadline', async () => {
    const group = await replicas(3, '5/s,20/m');
    const deadline = Date.now() + 2_000;
    const outcomes = await Promise.all(
      group.flatMap(({ limiter }) => Array.from({ length: 10 }, () => attempt(limiter, 'checkout', deadline))),
    );

    const grants = outcomes.flatMap((o) => ('grantedAt' in o ? [o.grantedAt] : []));
    const refusals = outcomes.flatMap((o) => ('refusedAt' in o ? [o] : []));
    // Two full 1 s windows (plus the safety margin) fit before the deadline: the second five queued.
    expect(grants).toHaveLength(10);
    expect(busiestWindow(grants, 1_000)).toBeLessThanOrEqual(5);
    expect(busiestWindow(grants, 60_000)).toBeLessThanOrEqual(20);
    expect(refusals).toHaveLength(20);
    for (const refusal of refusals) {
      expectRateLimited(refusal);
      expect(refusal.refusedAt).toBeLessThanOrEqual(deadline + 50);
    }
    const counted = await Promise.all(
      group.map(async ({ metrics }) => (await metrics.upstreamLimiterRefusals.get()).values[0]?.value ?? 0),
    );
    expect(counted.reduce((a, b) => a + b, 0)).toBe(20);
  });

  it('refuses at once, all windows or none, when the longer window is spent', async () => {
    const [replica] = await replicas(1, '5/s,7/m');
    const deadline = Date.now() + 2_000;
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => attempt(replica.limiter, 'checkout', deadline)));
    const grants = outcomes.flatMap((o) => ('grantedAt' in o ? [o.grantedAt] : []));
    expect(grants).toHaveLength(7);
    for (const outcome of outcomes.filter((o) => 'refusedAt' in o)) {
      expect(expectRateLimited(outcome).retryAfterSeconds).toBeGreaterThan(50);
    }
  });

  it('keeps headroom for checkout calls: background calls are held back when slots are scarce', async () => {
    const [a, b] = await replicas(2, '5/s,20/m');
    const soon = () => Date.now() + 300;
    // 5/s leaves 1 slot free for checkout, so background gets 4.
    for (let i = 0; i < 4; i += 1) await (i % 2 === 0 ? a : b).limiter.acquire('background', soon());
    expectRateLimited(await attempt(b.limiter, 'background', soon()));
    await expect(a.limiter.acquire('checkout', soon())).resolves.toEqual({ grantedAt: expect.any(Number) });
    expectRateLimited(await attempt(b.limiter, 'checkout', soon()));
  });

  it('pauses every replica after a 429', async () => {
    const [a, b, c] = await replicas(3, '5/s,20/m');
    await a.limiter.pauseAll(1);
    const started = Date.now();

    const short = expectRateLimited(await attempt(c.limiter, 'checkout', Date.now() + 300));
    expect(short.retryAfterSeconds).toBe(1);

    const waited = await Promise.all(
      [a, b].map(async ({ limiter }) => {
        await limiter.acquire('checkout', Date.now() + 2_500);
        return Date.now() - started;
      }),
    );
    for (const ms of waited) expect(ms).toBeGreaterThanOrEqual(900);
    expect((await a.metrics.upstreamLimiterPauses.get()).values[0]?.value).toBe(1);
  });

  it('falls back to a local third of each window while Redis is unreachable, and still honours a 429', async () => {
    const [replica] = await replicas(1, '6/s,60/m', connectToNowhere);
    const outcomes = await Promise.all(Array.from({ length: 4 }, () => attempt(replica.limiter, 'checkout', Date.now() + 300)));
    expect(outcomes.filter((outcome) => 'grantedAt' in outcome).length).toBe(2);
    await replica.limiter.pauseAll(1);
    expectRateLimited(await attempt(replica.limiter, 'checkout', Date.now() + 300));
  });
});
