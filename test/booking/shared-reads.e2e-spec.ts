import Redis from 'ioredis';
import { RedisKeys } from '../../src/redis/redis-keys';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';
import { testRedisUrl } from '../utils/test-config';
import { stay } from './booking-client';

const READS = 200;

/**
 * docs/product-spec.md §7: one upstream read per key however many replicas miss it at once — one
 * replica fetches, the others wait for its answer through Redis — and a replica that died while
 * fetching holds the others up no longer than the upstream deadline. Counted at the sandbox.
 */
describe('one upstream read per key on three replicas', () => {
  let world: SandboxedApps;
  let redis: Redis;

  beforeAll(async () => {
    world = await startSandboxedApps(3, {
      env: {
        CHECKOUT_IP_READ_LIMIT: '100000/m',
        CHECKOUT_IP_RATE_LIMIT: '100000/m',
        UPSTREAM_ANONYMOUS_SHARE: '100',
        // Long enough for a live fetch on a loaded machine, short enough for the dead-fetcher case to end soon.
        UPSTREAM_DEADLINE_MS: '3000',
      },
      // Slow enough that every replica misses while the first fetch is still out.
      sandbox: { latencyMs: 50 },
    });
    redis = new Redis(testRedisUrl());
    // The access token minted first: the counts below are of reads, not of a cold start.
    expect((await fetch(`${world.apps[0].url}/checkout/listings/lst-seaside`)).status).toBe(200);
  });

  afterAll(async () => {
    redis.disconnect();
    await world.close();
  });

  const keys = () => new RedisKeys(world.env.REDIS_KEY_PREFIX);
  const calls = (route: string, from: number) =>
    world.sandbox.control.requestLog.slice(from).filter((entry) => entry.route === route).length;
  const spread = <T>(count: number, read: (url: string, index: number) => Promise<T>) =>
    Promise.all(Array.from({ length: count }, (_, index) => read(world.apps[index % world.apps.length].url, index)));
  const json = async (response: Response) => ({ status: response.status, body: (await response.json()) as Record<string, unknown> });

  it('200 reads of one 30-day calendar range spread over the replicas make one upstream read per month', async () => {
    const { checkIn: from, checkOut: to } = stay(120, 30);
    const months = new Set([from.slice(0, 7), to.slice(0, 7)]).size;
    const before = world.sandbox.control.requestLog.length;
    const answers = await spread(READS, (url) => fetch(`${url}/checkout/listings/lst-seaside/calendar?from=${from}&to=${to}`).then(json));
    expect(answers.map((answer) => answer.status)).toEqual(Array(READS).fill(200));
    expect(new Set(answers.map((answer) => JSON.stringify(answer.body))).size).toBe(1);
    expect(calls('calendar', before)).toBe(months);
  });

  it('20 identical quote requests spread over the replicas make one upstream quote, and all get it', async () => {
    const body = JSON.stringify({ listingId: 'lst-seaside', ...stay(150, 3), guestsCount: 2 });
    const before = world.sandbox.control.requestLog.length;
    const answers = await spread(20, (url) =>
      fetch(`${url}/checkout/quotes`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body }).then(json),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(201));
    expect(new Set(answers.map((answer) => answer.body.id)).size).toBe(1);
    expect(calls('createQuote', before)).toBe(1);
  });

  it('200 reads of one listing summary spread over the replicas make one upstream read', async () => {
    const before = world.sandbox.control.requestLog.length;
    const answers = await spread(READS, (url) => fetch(`${url}/checkout/listings/lst-mountain`).then(json));
    expect(answers.map((answer) => answer.status)).toEqual(Array(READS).fill(200));
    expect(calls('listing', before)).toBe(1);
  });

  it('a replica that died holding the fetch lock holds the others up no longer than the upstream deadline', async () => {
    const { checkIn: from } = stay(200, 5);
    const month = from.slice(0, 7);
    const lock = keys().fetchLock('calendar', `lst-seaside:${month}`);
    // What a replica killed between taking the lock and publishing leaves behind, for longer than any deadline.
    await redis.set(lock, 'a-replica-that-died', 'PX', 60_000);
    const before = world.sandbox.control.requestLog.length;
    const answers = await spread(6, (url) => fetch(`${url}/checkout/listings/lst-seaside/calendar?from=${from}&to=${from}`).then(json));
    expect(answers.map((answer) => answer.status)).toEqual(Array(6).fill(200));
    // Answered while the dead replica's lock still stands: the wait ended at the deadline, not at the lock's expiry.
    expect(await redis.pttl(lock)).toBeGreaterThan(0);
    // A replica that gives up reads for itself and publishes; one still waiting takes that answer: one read per replica at most.
    expect(calls('calendar', before)).toBeGreaterThanOrEqual(1);
    expect(calls('calendar', before)).toBeLessThanOrEqual(world.apps.length);
    await redis.del(lock);
  });
});
