import request from 'supertest';
import { OwnRedis, startOwnRedis, waitUntil } from '../utils/redis-server';
import { startTestApp, TestApp } from '../utils/test-app';

describe('readiness follows Redis without a restart', () => {
  let redis: OwnRedis;
  let service: TestApp;

  beforeAll(async () => {
    redis = await startOwnRedis();
    service = await startTestApp({ REDIS_URL: redis.url });
  });

  afterAll(async () => {
    await redis.start().catch(() => undefined);
    await service.close();
    await redis.stop();
  });

  const readyStatus = async () => (await request(service.url).get('/health/ready')).status;

  it('is ready, turns 503 while Redis is stopped (liveness stays 200), and ready again once it is back', async () => {
    expect(await readyStatus()).toBe(200);

    await redis.stop();
    const down = await request(service.url).get('/health/ready');
    expect(down.status).toBe(503);
    expect(down.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(down.body.code).toBe('not_ready');
    await request(service.url).get('/health/live').expect(200);

    await redis.start();
    await waitUntil(async () => (await readyStatus()) === 200, 10_000, 'readiness after Redis returned');
  });

  it('answers readiness within its timeout while Redis hangs', async () => {
    redis.pause();
    try {
      // Answered while Redis still hangs: only the readiness timeout can have ended the check.
      const res = await request(service.url).get('/health/ready');
      expect(res.status).toBe(503);
    } finally {
      redis.resume();
    }
    await waitUntil(async () => (await readyStatus()) === 200, 10_000, 'readiness after Redis resumed');
  });
});
