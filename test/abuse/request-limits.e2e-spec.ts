import request from 'supertest';
import { startOwnRedis } from '../utils/redis-server';
import { startTestApp, TestApp } from '../utils/test-app';
import { testKeyPrefix } from '../utils/test-config';
import { RequestLimitsProbeModule } from './request-limits-probe.module';

/** Two replicas of one deployment: same Redis, same key prefix. */
async function replicas(env: Record<string, string>): Promise<TestApp[]> {
  const shared = { REDIS_KEY_PREFIX: testKeyPrefix(), ...env };
  return [
    await startTestApp(shared, { extraModules: [RequestLimitsProbeModule] }),
    await startTestApp(shared, { extraModules: [RequestLimitsProbeModule] }),
  ];
}

const limited = (app: TestApp, forwardedFor?: string) => {
  const call = request(app.url).post('/test/limited');
  return forwardedFor === undefined ? call : call.set('X-Forwarded-For', forwardedFor);
};

const cardAttempt = (app: TestApp, reservationId: string) => request(app.url).post(`/test/card-attempts/${reservationId}`);

function expectLimited(res: request.Response, windowSeconds: number): void {
  expect(res.status).toBe(429);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.body.code).toBe('rate_limited');
  const retryAfter = Number(res.headers['retry-after']);
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(windowSeconds);
}

describe('per-IP limit with TRUST_PROXY=0: X-Forwarded-For is not believed', () => {
  let apps: TestApp[];

  beforeAll(async () => {
    apps = await replicas({ CHECKOUT_IP_RATE_LIMIT: '3/m', TRUST_PROXY: '0' });
  });

  afterAll(async () => {
    for (const app of apps) await app.close();
  });

  it('counts one client across replicas and refuses the 4th request with 429 and Retry-After', async () => {
    await limited(apps[0], '203.0.113.1').expect(201);
    await limited(apps[1], '203.0.113.2').expect(201);
    await limited(apps[0], '203.0.113.3').expect(201);
    expectLimited(await limited(apps[1], '203.0.113.4'), 60);
    expectLimited(await limited(apps[0]), 60);

    const metrics = await request(apps[0].url).get('/metrics').expect(200);
    expect(metrics.text).toMatch(/request_limit_refusals_total\{limit="client_ip"\} 1/);
  });
});

describe('per-IP limit with TRUST_PROXY=1: the proxy-given address counts', () => {
  let apps: TestApp[];

  beforeAll(async () => {
    apps = await replicas({ CHECKOUT_IP_RATE_LIMIT: '3/m', TRUST_PROXY: '1' });
  });

  afterAll(async () => {
    for (const app of apps) await app.close();
  });

  it('counts each forwarded client on its own, shared by the replicas', async () => {
    await limited(apps[0], '203.0.113.1').expect(201);
    await limited(apps[1], '203.0.113.1').expect(201);
    await limited(apps[0], '203.0.113.1').expect(201);
    expectLimited(await limited(apps[1], '203.0.113.1'), 60);
    await limited(apps[0], '203.0.113.2').expect(201);
    await limited(apps[1]).expect(201);
  });

  it('trusts one hop only: an address the client put in front of the header does not help', async () => {
    for (let i = 0; i < 3; i += 1) await limited(apps[i % 2], '203.0.113.50').expect(201);
    expectLimited(await limited(apps[0], '198.51.100.9, 203.0.113.50'), 60);
  });

  it('counts an IPv6 client by its /48: changing /64 within the site does not step around the limit', async () => {
    await limited(apps[0], '2001:db8:1:2::1').expect(201);
    await limited(apps[1], '2001:db8:1:3::2').expect(201);
    await limited(apps[0], '2001:db8:1:ff:aaaa::3').expect(201);
    expectLimited(await limited(apps[1], '2001:db8:1:4::4'), 60);
    await limited(apps[0], '2001:db8:2:2::1').expect(201);
  });
});

describe('card attempts per reservation', () => {
  let apps: TestApp[];

  beforeAll(async () => {
    apps = await replicas({ CHECKOUT_CARD_ATTEMPTS: '2/h' });
  });

  afterAll(async () => {
    for (const app of apps) await app.close();
  });

  it('refuses the 3rd attempt for one reservation on any replica, but not another reservation', async () => {
    await cardAttempt(apps[0], 'res-1').expect(201);
    await cardAttempt(apps[1], 'res-1').expect(201);
    const refused = await cardAttempt(apps[0], 'res-1');
    expectLimited(refused, 3600);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(3500);
    expect(refused.body.detail).toMatch(/card attempts/i);
    expectLimited(await cardAttempt(apps[1], 'res-1'), 3600);
    await cardAttempt(apps[1], 'res-2').expect(201);
  });
});

describe('request limits while Redis is down', () => {
  it('fail closed: 503 store_unavailable, never an uncounted request', async () => {
    const own = await startOwnRedis();
    const app = await startTestApp({ REDIS_URL: own.url }, { extraModules: [RequestLimitsProbeModule] });
    try {
      await own.stop();
      for (const res of [await limited(app), await cardAttempt(app, 'res-1')]) {
        expect(res.status).toBe(503);
        expect(res.body.code).toBe('store_unavailable');
        expect(res.headers['retry-after']).toBe('1');
      }
    } finally {
      // Back up before closing, so neither the app nor the test's cleanup client keeps reconnecting.
      await own.start();
      await app.close();
      await own.stop();
    }
  });
});
