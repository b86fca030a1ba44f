import { randomUUID } from 'node:crypto';
import { Cluster } from 'ioredis';
import request from 'supertest';
import { GuestyClient } from '../../src/upstream/guesty-client';
import { RedisKeyValueStore } from '../../src/redis/redis-key-value-store';
import { RedisKeys } from '../../src/redis/redis-keys';
import { describeKeyValueStoreContract } from '../redis/key-value-store.contract';
import { CARDS, cardBody, checkoutClient, freshReservation } from '../utils/checkout-client';
import { OwnRedisCluster, startRedisCluster } from '../utils/redis-cluster';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';
import { testKeyPrefix } from '../utils/test-config';

/**
 * The store, the shared token, the outbound budget, Idempotency-Keys and sessions on a real
 * Redis Cluster of three masters, started once for this file (it takes a few seconds) and thrown
 * away after it, keys and all.
 */
describe('on a Redis Cluster of three masters', () => {
  let cluster: OwnRedisCluster;

  beforeAll(async () => {
    cluster = await startRedisCluster();
  }, 30_000);

  afterAll(async () => {
    await cluster?.stop();
  });

  describeKeyValueStoreContract('Redis Cluster', async () => {
    const store = RedisKeyValueStore.connect(cluster.url);
    if (!(await store.whenConnected(5_000))) throw new Error('the cluster client did not become ready');
    return { store, prefix: testKeyPrefix(), close: () => store.close() };
  });

  describe('the store', () => {
    let store: RedisKeyValueStore;

    beforeAll(async () => {
      store = RedisKeyValueStore.connect(cluster.url);
      if (!(await store.whenConnected(5_000))) throw new Error('the cluster client did not become ready');
    });

    afterAll(() => store.close());

    it('talks to the cluster through a Cluster client that knows all three masters', () => {
      expect(store.client).toBeInstanceOf(Cluster);
      expect((store.client as Cluster).nodes('master')).toHaveLength(3);
    });

    it('keeps each group of keys one script uses in one slot, as the servers compute it', async () => {
      const keys = new RedisKeys(testKeyPrefix());
      const budget = keys.upstreamBudget();
      const limit = keys.requestLimit('client-ip', '203.0.113.0/24');
      const token = keys.accessToken('client-id');
      const groups = [
        [...budget.windowKeys([{ windowMs: 1_000 }, { windowMs: 60_000 }, { windowMs: 3_600_000 }]), budget.pause],
        [limit.window, limit.pause],
        [token.token, token.mintLock, token.mintLedger, token.refusalRemint],
      ];
      const node = cluster.node(cluster.ports[1]);
      for (const group of groups) {
        const slots = await Promise.all(group.map((key) => node.call('CLUSTER', 'KEYSLOT', key)));
        expect(new Set(slots).size).toBe(1);
      }
    });

    it('is refused a script over keys of several slots, so every script that succeeds in this file kept its keys in one', async () => {
      const prefix = testKeyPrefix();
      const windowKeys = [`${prefix}{a}:w`, `${prefix}{b}:w`];
      const node = cluster.node(cluster.ports[0]);
      expect(new Set(await Promise.all(windowKeys.map((key) => node.call('CLUSTER', 'KEYSLOT', key)))).size).toBe(2);
      await expect(
        store.takeSlot({
          windowKeys,
          pauseKey: `${prefix}{a}:pause`,
          windows: windowKeys.map(() => ({ limit: 5, windowMs: 1_000, reserve: 0 })),
          member: 'm',
        }),
      ).rejects.toThrow(/CROSSSLOT/);
    });

    /** Keys of this prefix until every master holds `each` of them. */
    const keysOnEveryMaster = async (prefix: string, each: number) => {
      const byMaster = new Map<number, string[]>(cluster.ports.map((port) => [port, []]));
      for (let i = 0; [...byMaster.values()].some((keys) => keys.length < each); i += 1) {
        const key = `${prefix}spread-${i}`;
        const held = byMaster.get(await cluster.masterOf(key))!;
        if (held.length < each) held.push(key);
      }
      return [...byMaster.values()].flat();
    };

    it('deletes keys held by different masters in one call', async () => {
      const keys = await keysOnEveryMaster(testKeyPrefix(), 2);
      for (const key of keys) await store.set(key, 'v');
      await store.delete(...keys);
      expect(await Promise.all(keys.map((key) => store.get(key)))).toEqual(keys.map(() => null));
    });

    // Shorter than --cluster-node-timeout (2 s), so the other masters never mark it failed.
    it('fails a command within the command timeout while its master hangs, and serves the others meanwhile', async () => {
      const [hung, other] = await keysOnEveryMaster(testKeyPrefix(), 1);
      await store.set(hung, 'before');
      const port = await cluster.masterOf(hung);
      cluster.pause(port);
      try {
        // "timed out": the command timeout ended it, not the master coming back.
        await expect(store.get(hung)).rejects.toThrow(/timed out/i);
        await expect(store.set(other, 'fine')).resolves.toBe(true);
      } finally {
        cluster.resume(port);
      }
      await expect(store.get(hung)).resolves.toBe('before');
    });
  });

  describe('two replicas of the service', () => {
    let world: SandboxedApps;

    beforeAll(async () => {
      world = await startSandboxedApps(2, {
        env: { REDIS_URL: cluster.url, UPSTREAM_RATE_LIMITS: '1000/s,10000/m,100000/h' },
        sandbox: { rateLimits: { perSecond: 1000, perMinute: 10_000, perHour: 100_000 }, paymentVisibilityDelayMs: 0 },
      });
    });

    afterAll(() => world?.close());

    const site = (index: number) => checkoutClient(world.apps[index].url);

    it('mint exactly one access token for concurrent cold requests across both', async () => {
      expect(world.sandbox.control.counters.tokensMinted).toBe(0);
      const reservations = await Promise.all(
        Array.from({ length: 60 }, (_, i) => world.apps[i % 2].app.get(GuestyClient).getReservation('res-checkout-usd')),
      );
      expect(reservations.every((reservation) => reservation?.id === 'res-checkout-usd')).toBe(true);
      expect(world.sandbox.control.counters.tokensMinted).toBe(1);
    });

    it('share a checkout session created on one and read on the other', async () => {
      const reservation = freshReservation(world, 250);
      const created = await site(0).createSession(reservation.reservationId, reservation.guestEmail).expect(201);
      const read = await site(1)
        .getSession(created.body.id as string)
        .expect(200);
      expect(read.body).toMatchObject({ id: created.body.id, status: created.body.status });
    });

    it('replay an Idempotency-Key on the other replica without a second upstream call', async () => {
      const reservation = freshReservation(world, 250);
      const created = await site(0).createSession(reservation.reservationId, reservation.guestEmail).expect(201);
      const sessionId = created.body.id as string;
      const key = randomUUID();
      const first = await site(0).submit(sessionId, cardBody(CARDS.noThreeDs), key).expect(200);
      const tokenizations = world.sandbox.control.counters.requests.tokenize;
      const replay = await site(1).submit(sessionId, cardBody(CARDS.noThreeDs), key).expect(200);
      expect(replay.body).toEqual(first.body);
      expect(world.sandbox.control.counters.requests.tokenize).toBe(tokenizations);
    });

    it('spread their keys over the masters', async () => {
      const prefix = world.env.REDIS_KEY_PREFIX;
      const perMaster = await Promise.all(cluster.ports.map(async (port) => (await cluster.node(port).keys(`${prefix}*`)).length));
      expect(perMaster.filter((count) => count > 0).length).toBeGreaterThanOrEqual(2);
    });
  });

  describe('two replicas with a small upstream budget', () => {
    let world: SandboxedApps;

    beforeAll(async () => {
      world = await startSandboxedApps(2, {
        // The whole budget open to anonymous reads: this is about the budget, not its shares.
        env: {
          REDIS_URL: cluster.url,
          UPSTREAM_RATE_LIMITS: '5/s,12/m,5000/h',
          UPSTREAM_DEADLINE_MS: '2000',
          UPSTREAM_ANONYMOUS_SHARE: '100',
        },
        sandbox: { rateLimits: { perSecond: 5, perMinute: 12, perHour: 5000 } },
      });
    });

    afterAll(() => world?.close());

    it('never exceed it together', async () => {
      const answers = await Promise.all(
        Array.from({ length: 24 }, (_, i) => request(world.apps[i % 2].url).get(`/checkout/listings/lst-burst-${i}`)),
      );
      expect(world.sandbox.control.counters.rateLimited).toBe(0);
      expect(answers.filter((answer) => answer.status === 404).length).toBeGreaterThanOrEqual(4);
      const refused = answers.filter((answer) => answer.status === 503);
      expect(refused.length).toBeGreaterThan(0);
      expect(refused.every((answer) => answer.body.code === 'rate_limited')).toBe(true);
      const perSecond = new Map<number, number>();
      for (const entry of world.sandbox.control.requestLog.filter((e) => e.route === 'listing')) {
        const second = Math.floor(entry.time / 1000);
        perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
      }
      expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(5);
    });
  });
});
