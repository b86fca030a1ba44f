import Redis from 'ioredis';
import request from 'supertest';
import { RedisKeys } from '../../src/redis/redis-keys';
import { freshReservation } from '../utils/checkout-client';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';

function expectLimited(answer: request.Response): void {
  expect(answer.status).toBe(429);
  expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(answer.body.code).toBe('rate_limited');
  const retryAfter = Number(answer.headers['retry-after']);
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(60);
}

const upstreamCalls = (world: SandboxedApps) => world.sandbox.control.requestLog.length;

describe('per-IP limit on /checkout reads that may cost an upstream call (CHECKOUT_IP_READ_LIMIT)', () => {
  let world: SandboxedApps;

  beforeEach(async () => {
    world = await startSandboxedApps(2, { env: { CHECKOUT_IP_READ_LIMIT: '4/m', CHECKOUT_IP_RATE_LIMIT: '100/m', TRUST_PROXY: '1' } });
  });

  afterEach(async () => {
    await world.close();
  });

  const listing = (replica: number, id: string, client: string) =>
    request(world.apps[replica].url).get(`/checkout/listings/${id}`).set('X-Forwarded-For', client);

  it('counts listing reads of one client across replicas and answers the next 429 with Retry-After, at no upstream cost', async () => {
    for (let i = 0; i < 4; i += 1) expect((await listing(i % 2, `lst-probe-${i}`, '203.0.113.7')).status).toBe(404);
    const before = upstreamCalls(world);
    expectLimited(await listing(1, 'lst-probe-new', '203.0.113.7'));
    expectLimited(await listing(0, 'lst-seaside', '203.0.113.7'));
    expect(upstreamCalls(world)).toBe(before);
    // Another client is counted on its own.
    await listing(0, 'lst-seaside', '203.0.113.8').expect(200);
    const metrics = (await request(world.apps[1].url).get('/metrics')).text;
    expect(metrics).toMatch(/request_limit_refusals_total\{limit="client_ip_read"\} 1/);
  });

  it('counts payment-status polls against the read limit, not the write limit', async () => {
    const { reservationId, guestEmail } = freshReservation(world);
    const created = await request(world.apps[0].url)
      .post('/checkout/sessions')
      .set('X-Forwarded-For', '203.0.113.20')
      .send({ reservationId, email: guestEmail });
    expect(created.status).toBe(201);
    const poll = (replica: number) =>
      request(world.apps[replica].url).get(`/checkout/sessions/${created.body.id}/payment-status`).set('X-Forwarded-For', '203.0.113.21');
    for (let i = 0; i < 4; i += 1) expect((await poll(i % 2)).status).toBe(200);
    expectLimited(await poll(0));
    // Reads and listing reads share the one read allowance of a client.
    expectLimited(await listing(1, 'lst-city', '203.0.113.21'));
  });
});

describe('a busy network’s reads, handed out by each replica from blocks of its shared read limit', () => {
  let world: SandboxedApps;

  beforeEach(async () => {
    world = await startSandboxedApps(2, { env: { CHECKOUT_IP_READ_LIMIT: '300/m', CHECKOUT_IP_RATE_LIMIT: '100/m', TRUST_PROXY: '1' } });
  });

  afterEach(async () => {
    await world.close();
  });

  it('grants no more than the limit over two replicas, nearly all of it, in far fewer store takes than reads', async () => {
    const client = '203.0.113.50';
    const statuses: number[] = [];
    // Waves of 20 reads at once, each wave split over both replicas, until well past the limit.
    for (let wave = 0; wave < 20; wave += 1) {
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          request(world.apps[i % 2].url)
            .get('/checkout/listings/lst-seaside')
            .set('X-Forwarded-For', client),
        ),
      );
      statuses.push(...answers.map((answer) => answer.status));
    }
    const granted = statuses.filter((status) => status === 200).length;
    expect(statuses.filter((status) => status !== 200 && status !== 429)).toEqual([]);
    expect(granted).toBeLessThanOrEqual(300);
    // Blocks shrink to single reads near the limit: a replica strands little of it in hand.
    expect(granted).toBeGreaterThanOrEqual(270);
    const redis = new Redis(world.apps[0].config.redis.url!);
    try {
      const window = new RedisKeys(world.env.REDIS_KEY_PREFIX).requestLimit('client-ip', `read:${client}`).window;
      const members = await redis.zrange(window, 0, -1);
      expect(members.length).toBeLessThanOrEqual(300);
      // A block's slots are one take: member.1 … member.N.
      const takes = new Set(members.map((member) => member.replace(/\.\d+$/, ''))).size;
      expect(takes).toBeLessThan(granted / 3);
    } finally {
      redis.disconnect();
    }
  });
});
