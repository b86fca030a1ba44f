import request from 'supertest';
import { OwnRedis, startOwnRedis, waitUntil } from '../utils/redis-server';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';

describe('the shared token while Redis is down', () => {
  let redis: OwnRedis;
  let world: SandboxedApps;

  beforeAll(async () => {
    redis = await startOwnRedis();
    world = await startSandboxedApps(1, { env: { REDIS_URL: redis.url } });
  });

  afterAll(async () => {
    await redis.start().catch(() => undefined);
    await world.close();
    await redis.stop();
  });

  it('keeps serving upstream reads with the cached token, mints nothing, and recovers without a restart', async () => {
    const service = world.apps[0];
    await request(service.url).get('/checkout/listings/lst-seaside').expect(200);
    expect(world.sandbox.control.counters.tokensMinted).toBe(1);

    await redis.stop();
    const during = await request(service.url).get('/checkout/listings/lst-city');
    expect(during.status).toBe(200);
    expect(during.body.city).toBe('Paris');
    await request(service.url).get('/health/ready').expect(503);

    await redis.start();
    await waitUntil(async () => (await request(service.url).get('/health/ready')).status === 200, 10_000, 'readiness');
    await request(service.url).get('/checkout/listings/lst-mountain').expect(200);
    expect(world.sandbox.control.counters.tokensMinted).toBe(1);
  });
});
