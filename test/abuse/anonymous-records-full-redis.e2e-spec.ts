import Redis from 'ioredis';
import request from 'supertest';
import { cardBody, checkoutClient, freshReservation } from '../utils/checkout-client';
import { configSet, startOwnRedis, type OwnRedis } from '../utils/redis-server';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';

/** Room left in Redis past what the service holds: less than the flood's read records, were they all made there. */
const ROOM_BYTES = 1_000_000;
const CEILING = 500;
const FLOOD_ADDRESSES = 6_000;
const AT_ONCE = 100;

const address = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

/**
 * docs/product-spec.md §7 and issue 45: on a Redis that must not evict, memory a flood fills is
 * memory the write journal no longer has. A Redis given little room past what the service holds
 * takes a flood of reads from thousands of fresh addresses, and a guest's checkout still records
 * every write it makes.
 */
describe('a flood of fresh addresses on a Redis with little memory to spare', () => {
  let redis: OwnRedis;
  let admin: Redis;
  let world: SandboxedApps;

  beforeAll(async () => {
    redis = await startOwnRedis();
    admin = new Redis(redis.url);
    world = await startSandboxedApps(1, {
      env: {
        REDIS_URL: redis.url,
        TRUST_PROXY: '1',
        ANONYMOUS_RECORDS_PER_HOUR: String(CEILING),
        UPSTREAM_RATE_LIMITS: '100/s,1000/m,20000/h',
      },
      sandbox: { rateLimits: { perSecond: 100, perMinute: 1000, perHour: 20000 }, paymentVisibilityDelayMs: 0 },
    });
  });

  afterAll(async () => {
    await world.close();
    admin.disconnect();
    await redis.dispose();
  });

  const usedMemory = async () => Number(/^used_memory:(\d+)/m.exec(await admin.info('memory'))?.[1]);

  it('leaves room for the journal: a guest from a fresh address pays after the flood', async () => {
    const url = world.apps[0].url;
    const calendar = (from: string) =>
      request(url)
        .get('/checkout/listings/lst-seaside/calendar')
        .query({ from: '2031-07-01', to: '2031-07-10' })
        .set('X-Forwarded-For', from);
    // The month is cached before the room is set: the flood reads Redis and nothing upstream.
    expect((await calendar('10.255.0.1')).status).toBe(200);
    await configSet(redis.port, 'maxmemory', String((await usedMemory()) + ROOM_BYTES));

    for (let i = 0; i < FLOOD_ADDRESSES; i += AT_ONCE) {
      const answers = await Promise.all(Array.from({ length: AT_ONCE }, (_, j) => calendar(address(i + j))));
      expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
    }

    const { reservationId, guestEmail } = freshReservation(world);
    const session = await request(url)
      .post('/checkout/sessions')
      .set('X-Forwarded-For', '10.255.0.2')
      .send({ reservationId, email: guestEmail });
    expect(session.status).toBe(201);
    const paid = await checkoutClient(url).submit(session.body.id as string, cardBody());
    expect(paid.body.status).toBe('succeeded');
  });
});
