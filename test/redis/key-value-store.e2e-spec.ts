import Redis from 'ioredis';
import { describeKeyValueStoreContract } from './key-value-store.contract';
import { MemoryKeyValueStore } from '../../src/redis/memory-key-value-store';
import { RedisKeyValueStore } from '../../src/redis/redis-key-value-store';
import { startOwnRedis } from '../utils/redis-server';
import { testKeyPrefix, testRedisUrl } from '../utils/test-config';

describeKeyValueStoreContract('Redis', async () => {
  const store = RedisKeyValueStore.connect(testRedisUrl());
  await store.whenConnected(3000);
  const prefix = testKeyPrefix();
  return {
    store,
    prefix,
    close: async () => {
      const admin = new Redis(testRedisUrl());
      const keys = await admin.keys(`${prefix}*`);
      if (keys.length > 0) await admin.del(...keys);
      admin.disconnect();
      await store.close();
    },
  };
});

describeKeyValueStoreContract('in-process', () =>
  Promise.resolve({ store: new MemoryKeyValueStore(), prefix: 'memory:', close: () => Promise.resolve() }),
);

describe('a sliding-window log in Redis', () => {
  it('lives as long as its longest-counted slot: a later, shorter take never shortens it', async () => {
    const store = RedisKeyValueStore.connect(testRedisUrl());
    const admin = new Redis(testRedisUrl());
    const key = `${testKeyPrefix()}{log}:w`;
    try {
      await store.whenConnected(3000);
      const take = (member: string, countsFromMs: number) =>
        store.takeSlot({
          windowKeys: [key],
          pauseKey: `${key}:pause`,
          windows: [{ limit: 10, windowMs: 30_000, reserve: 0 }],
          member,
          countsFromMs,
        });
      // A miss kept among places: counted an hour, in a log of 30-second places.
      await take('miss', 3_570_000);
      await take('place', 0);
      expect(await admin.pttl(key)).toBeGreaterThan(3_500_000);
    } finally {
      await admin.del(key);
      admin.disconnect();
      await store.close();
    }
  });
});

describe('Redis on the request path', () => {
  // The refusal names the reason: nothing is queued until Redis comes back (a queued command would
  // wait for the reconnection, not fail).
  it('fails a command at once while Redis is unreachable, instead of queueing it', async () => {
    const store = RedisKeyValueStore.connect('redis://127.0.0.1:1');
    await expect(store.get('anything')).rejects.toThrow(/enableOfflineQueue options is false/);
    await store.close();
  });

  it('does the same while no node of a Redis Cluster answers', async () => {
    const store = RedisKeyValueStore.connect('redis+cluster://127.0.0.1:1,127.0.0.1:2');
    await expect(store.get('anything')).rejects.toThrow(/enableOfflineQueue options is false/);
    await expect(
      store.takeSlot({ windowKeys: ['{b}:w'], pauseKey: '{b}:pause', windows: [{ limit: 1, windowMs: 1_000, reserve: 0 }], member: 'm' }),
    ).rejects.toThrow(/enableOfflineQueue options is false/);
    await store.close();
  });
});

describe('the store runs its scripts by SHA', () => {
  it('sends each script once, then by SHA; after SCRIPT FLUSH (a restart, a failover) it sends it again by itself', async () => {
    const own = await startOwnRedis();
    const store = RedisKeyValueStore.connect(own.url);
    const admin = new Redis(own.url);
    try {
      await store.whenConnected(3000);
      const batch = () =>
        store.batch([
          { op: 'set', key: 'k', value: 'v', ttlMs: 60_000 },
          { op: 'get', key: 'k' },
        ]);
      await expect(batch()).resolves.toEqual([true, 'v']);
      await expect(batch()).resolves.toEqual([true, 'v']);
      const calls = async (command: string) =>
        Number(new RegExp(`^cmdstat_${command}:calls=(\\d+)`, 'm').exec(await admin.info('commandstats'))?.[1] ?? 0);
      // The first call sends the script (EVAL), the next its SHA (EVALSHA).
      expect(await calls('eval')).toBe(1);
      expect(await calls('evalsha')).toBe(1);
      await admin.script('FLUSH');
      await expect(batch()).resolves.toEqual([true, 'v']);
      // Its SHA answered NOSCRIPT, and the script was sent again: no error reached the caller.
      expect(await calls('evalsha')).toBe(2);
      expect(await calls('eval')).toBe(2);
    } finally {
      admin.disconnect();
      await store.close();
      await own.dispose();
    }
  });
});
