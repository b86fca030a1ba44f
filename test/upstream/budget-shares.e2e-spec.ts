import { onSurface } from '../utils/surface';
import Redis from 'ioredis';
import request from 'supertest';
import { RedisKeys } from '../../src/redis/redis-keys';
import { freshReservation } from '../utils/checkout-client';
import { freshReservationIn, startAppsOnSandboxProcess } from '../utils/sandbox-process';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';
import { testRedisUrl } from '../utils/test-config';

// Every anonymous request from an address of its own: the per-IP limits are not what is tested here.
const ANONYMOUS = { TRUST_PROXY: '1' };
let nextAddress = 0;
const anonymousAddress = () => `198.18.${Math.floor(nextAddress / 250) % 250}.${(nextAddress++ % 250) + 1}`;

function anonymousRead(serviceUrl: string, listingId: string) {
  return request(serviceUrl).get(`/checkout/listings/${listingId}`).set('X-Forwarded-For', anonymousAddress());
}

function upstreamListingReads(world: SandboxedApps): number {
  return world.sandbox.control.requestLog.filter((entry) => entry.route === 'listing').length;
}

describe('anonymous reads use at most their share of the upstream budget, counted where the platform counts', () => {
  it('lets every checkout through after a flood of unknown listing ids took what it could of the minute', async () => {
    // The upstream's own limits (15/s, 120/m, 5000/h), as the service is configured by default. The
    // sandbox counts arrivals in its own process, as the platform does: in this one, the flood's
    // own stalls would bunch the arrivals it judges.
    const own = await startAppsOnSandboxProcess(1, { env: ANONYMOUS });
    try {
      const service = own.apps[0].url;
      const flood = await Promise.all(Array.from({ length: 115 }, (_, i) => anonymousRead(service, `lst-random-${i}`)));
      expect(flood.filter((answer) => answer.status === 404).length).toBeGreaterThan(0);
      for (const refused of flood.filter((answer) => answer.status !== 404)) {
        expect(refused.status).toBe(503);
        expect(refused.body.code).toBe('rate_limited');
        expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      }
      // UPSTREAM_ANONYMOUS_SHARE defaults to 50 %: at most 60 of the minute's 120.
      const listingReads = (await own.sandbox.control('requestLog')).filter((entry) => entry.route === 'listing');
      expect(listingReads.length).toBeLessThanOrEqual(60);

      const sessions = [];
      for (let i = 0; i < 16; i += 1) {
        const { reservationId, guestEmail } = await freshReservationIn(own.sandbox);
        sessions.push(await request(service).post('/checkout/sessions').send({ reservationId, email: guestEmail }));
      }
      expect(sessions.map((answer) => answer.status)).toEqual(Array(16).fill(201));
      expect((await own.sandbox.control('counters')).rateLimited).toBe(0);
      const metrics = (await request(service).get('/metrics')).text;
      expect(metrics).toMatch(/upstream_share_refusals_total\{share="anonymous"\} [1-9]/);
    } finally {
      await own.close();
    }
  });
});

describe('anonymous reads use at most their share of the upstream budget', () => {
  let world: SandboxedApps;

  afterEach(async () => {
    await world.close();
  });

  it('holds the share across replicas in the one atomic step of the shared budget', async () => {
    world = await startSandboxedApps(3, {
      env: { ...ANONYMOUS, UPSTREAM_RATE_LIMITS: '100/s,20/m,5000/h', UPSTREAM_ANONYMOUS_SHARE: '25' },
      sandbox: { rateLimits: { perSecond: 100, perMinute: 20, perHour: 5000 } },
    });
    const flood = await Promise.all(Array.from({ length: 60 }, (_, i) => anonymousRead(world.apps[i % 3].url, `lst-spread-${i}`)));
    expect(flood.filter((answer) => answer.status === 404)).toHaveLength(5);
    expect(upstreamListingReads(world)).toBe(5);
    // The other 75 % of the minute (15 calls) is the checkouts', whichever replica serves them: a
    // session opens on 1 call on the legacy surface, 4 on the current one (docs/upstream.md).
    const opens = onSurface({ legacy: 5, current: 3 });
    const sessions = [];
    for (let i = 0; i < opens; i += 1) {
      const { reservationId, guestEmail } = freshReservation(world);
      sessions.push(
        await request(world.apps[i % 3].url)
          .post('/checkout/sessions')
          .send({ reservationId, email: guestEmail }),
      );
    }
    expect(sessions.map((answer) => answer.status)).toEqual(Array(opens).fill(201));
    expect(world.sandbox.control.counters.rateLimited).toBe(0);
  });

  it('remembers an unknown listing id for 60 s, for every replica', async () => {
    world = await startSandboxedApps(2, { env: ANONYMOUS });
    await anonymousRead(world.apps[0].url, 'lst-unknown').expect(404);
    await anonymousRead(world.apps[1].url, 'lst-unknown').expect(404);
    await anonymousRead(world.apps[0].url, 'lst-unknown').expect(404);
    expect(upstreamListingReads(world)).toBe(1);
    const redis = new Redis(testRedisUrl());
    try {
      const ttl = await redis.pttl(new RedisKeys(world.env.REDIS_KEY_PREFIX).cache('listing-summary', 'lst-unknown'));
      expect(ttl).toBeGreaterThan(50_000);
      expect(ttl).toBeLessThanOrEqual(60_000);
    } finally {
      redis.disconnect();
    }
    // A known listing is still read and kept as before.
    await anonymousRead(world.apps[1].url, 'lst-city').expect(200);
    expect(upstreamListingReads(world)).toBe(2);
  });
});
