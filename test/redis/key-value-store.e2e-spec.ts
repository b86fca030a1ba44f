import Redis from 'ioredis';
import { describeKeyValueStoreContract } from './key-value-store.contract';
import { MemoryKeyValueStore } from '../../src/redis/memory-key-value-store';
import { RedisKeyValueStore } from '../../src/redis/redis-key-value-store';
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
