import type Redis from 'ioredis';
import { RedisKeyValueStore } from './redis-key-value-store';

/**
 * A primary whose INFO replication says `replicas.now` connected replicas; `reconnect()` is the
 * client's `ready` after a reconnect (a restarted primary, a failover behind one address).
 */
function primaryWith(replicas: { now: number }): { client: Redis; reconnect: () => void } {
  const onReady: (() => void)[] = [];
  const client = {
    defineCommand: () => undefined,
    on: (event: string, listener: () => void) => {
      if (event === 'ready') onReady.push(listener);
    },
    info: () => Promise.resolve(`# Replication\r\nrole:master\r\nconnected_slaves:${replicas.now}\r\n`),
  } as unknown as Redis;
  return { client, reconnect: () => onReady.forEach((listener) => listener()) };
}

describe('RedisKeyValueStore: the replicas a journal write waits for', () => {
  let now: number;
  beforeEach(() => {
    now = 1_000_000;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
  });
  afterEach(() => jest.restoreAllMocks());

  it('keeps replicas once seen required while a primary read again finds none, until none is found for 10 s', async () => {
    const replicas = { now: 1 };
    const primary = primaryWith(replicas);
    const store = new RedisKeyValueStore(primary.client);
    expect(await store.replicasSeen()).toBe(1);
    // A restarted primary read before its replica connected again: writes still wait for one.
    replicas.now = 0;
    primary.reconnect();
    expect(await store.replicasSeen()).toBe(1);
    now += 6_000;
    expect(await store.replicasSeen()).toBe(1);
    now += 6_000;
    // None for 12 s: the replica is gone, and writes go without waiting.
    expect(await store.replicasSeen()).toBe(0);
  });

  it('a replica back within the grace starts the count of none again', async () => {
    const replicas = { now: 2 };
    const primary = primaryWith(replicas);
    const store = new RedisKeyValueStore(primary.client);
    expect(await store.replicasSeen()).toBe(2);
    replicas.now = 0;
    primary.reconnect();
    now += 6_000;
    expect(await store.replicasSeen()).toBe(2);
    replicas.now = 1;
    now += 6_000;
    expect(await store.replicasSeen()).toBe(1);
    replicas.now = 0;
    primary.reconnect();
    now += 6_000;
    expect(await store.replicasSeen()).toBe(1);
    now += 6_000;
    expect(await store.replicasSeen()).toBe(1);
    now += 6_000;
    expect(await store.replicasSeen()).toBe(0);
  });

  it('a primary that never had replicas is not waited for', async () => {
    const store = new RedisKeyValueStore(primaryWith({ now: 0 }).client);
    expect(await store.replicasSeen()).toBe(0);
  });
});
