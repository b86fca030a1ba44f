import { BUILT_MAIN, spawnService, type ServiceProcess } from '../utils/service-process';
import { configSet, startOwnRedis, waitUntil, type OwnRedis } from '../utils/redis-server';
import { testKeyPrefix } from '../utils/test-config';

/**
 * A Redis that may evict keys forgets the write journal without a word (docs/write-journal.md, "When
 * Redis loses data"): an evicted intent, lease or card on file is how a second card is taken. The
 * service refuses to start on one, and stops taking traffic when one is turned that way under it.
 */
describe("a Redis whose memory policy may evict the service's keys", () => {
  let redis: OwnRedis;
  let service: ServiceProcess | undefined;

  beforeEach(async () => {
    redis = await startOwnRedis();
  });
  afterEach(async () => {
    service?.child.kill('SIGKILL');
    if (service) await service.exited;
    service = undefined;
    await redis.dispose();
  });

  const start = () =>
    spawnService(BUILT_MAIN, {
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: testKeyPrefix(),
      PORT: '0',
      NODE_ENV: 'test',
      LOG_PRETTY: 'false',
    });

  it.each(['volatile-lru', 'allkeys-lru', 'volatile-ttl'])('is refused at start with one line naming %s', async (policy) => {
    await configSet(redis.port, 'maxmemory-policy', policy);
    service = start();
    expect(await service.exited).toBe(1);
    expect(service.stderr).toEqual([
      `Start-up failed: Redis may evict the service's keys (maxmemory-policy ${policy}): an evicted write journal can take a second card. Set maxmemory-policy noeviction (docs/deploying.md).`,
    ]);
  });

  it('turns readiness off while the policy evicts, naming it, and on again once it is noeviction', async () => {
    service = start();
    const listening = await service.waitForLog((entry) => entry.msg === 'booking checkout service listening', 30_000);
    const ready = () => fetch(`http://127.0.0.1:${listening.port as number}/health/ready`);
    expect((await ready()).status).toBe(200);

    await configSet(redis.port, 'maxmemory-policy', 'allkeys-lfu');
    // Readiness reads the policy every few seconds beside its PING: the next reading turns it off.
    await waitUntil(async () => (await ready()).status === 503, 15_000, 'readiness off');
    expect(JSON.stringify(await (await ready()).json())).toMatch(/maxmemory-policy allkeys-lfu/);

    await configSet(redis.port, 'maxmemory-policy', 'noeviction');
    await waitUntil(async () => (await ready()).status === 200, 15_000, 'readiness back');
  });
});
