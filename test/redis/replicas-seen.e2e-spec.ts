import { RedisKeyValueStore } from '../../src/redis/redis-key-value-store';
import { BUILT_MAIN, spawnService, type ServiceProcess } from '../utils/service-process';
import { startOwnRedis, waitUntil, type OwnRedis } from '../utils/redis-server';
import { testKeyPrefix } from '../utils/test-config';

/**
 * REDIS_WAIT_REPLICAS=auto waits for a replica where the Redis primary has any (docs/write-journal.md,
 * "A failover that drops the latest writes"): the store reads them at start and on every reconnect.
 */
describe('the replicas a Redis primary has, as the journal reads them', () => {
  let primary: OwnRedis;
  let replica: OwnRedis | undefined;
  let store: RedisKeyValueStore | undefined;

  beforeEach(async () => {
    primary = await startOwnRedis();
  });
  afterEach(async () => {
    await store?.close();
    store = undefined;
    await replica?.dispose();
    replica = undefined;
    await primary.dispose();
  });

  it('a primary alone has none; a replica that joins is seen without a reconnect', async () => {
    store = RedisKeyValueStore.connect(primary.url);
    expect(await store.whenConnected(5_000)).toBe(true);
    expect(await store.replicasSeen()).toBe(0);
    replica = await startOwnRedis({ replicaOf: primary.port });
    await waitUntil(async () => (await store!.replicasSeen()) === 1, 10_000, 'the joined replica to be seen');
  });

  it('replicas seen stay seen while the connection lasts; a reconnect that finds none keeps them required for 10 s of such readings', async () => {
    replica = await startOwnRedis({ replicaOf: primary.port });
    store = RedisKeyValueStore.connect(primary.url);
    expect(await store.whenConnected(5_000)).toBe(true);
    expect(await store.replicasSeen()).toBe(1);
    // Cut off (a partition, or promoted elsewhere): it may hold the only copy the failover keeps, so writes still wait for it.
    await replica.follow(null);
    expect(await store.replicasSeen()).toBe(1);
    const reconnected = new Promise((resolve) => store!.client.once('ready', resolve));
    store.client.disconnect(true);
    await reconnected;
    // A restarted primary is read before its replica is back: writes still wait for one, then readings of none for 10 s say it is gone.
    expect(await store.replicasSeen()).toBe(1);
    await waitUntil(async () => (await store!.replicasSeen()) === 0, 20_000, 'readings of none for 10 s');
  }, 30_000);

  it('REDIS_WAIT_REPLICAS=0 stops the start with one line telling the operator to write off', async () => {
    const service: ServiceProcess = spawnService(BUILT_MAIN, {
      REDIS_URL: primary.url,
      REDIS_KEY_PREFIX: testKeyPrefix(),
      REDIS_WAIT_REPLICAS: '0',
      PORT: '0',
      NODE_ENV: 'test',
      LOG_PRETTY: 'false',
    });
    expect(await service.exited).toBe(1);
    expect(service.stderr).toEqual([
      'Configuration error: REDIS_WAIT_REPLICAS=0 is refused: write REDIS_WAIT_REPLICAS=off if you accept that a Redis failover may take a second card (the default, auto, waits for one replica where the Redis has any)',
    ]);
  });
});
