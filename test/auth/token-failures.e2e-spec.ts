import Redis from 'ioredis';
import request from 'supertest';
import { SharedAccessTokens } from '../../src/auth/shared-access-tokens';
import { AccessTokens } from '../../src/upstream/access-tokens';
import { RedisKeys } from '../../src/redis/redis-keys';
import { SANDBOX_CLIENT_ID } from '../../sandbox/types';
import { OwnRedis, startOwnRedis, waitUntil } from '../utils/redis-server';
import { bookingClient, stay } from '../booking/booking-client';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';

// High limits: these tests are about tokens, not the outbound budget or the per-IP limits.
const PLENTY = {
  env: { UPSTREAM_RATE_LIMITS: '1000/s,10000/m,100000/h', CHECKOUT_IP_READ_LIMIT: '10000/m' },
  sandbox: { rateLimits: { perSecond: 1000, perMinute: 10_000, perHour: 100_000 } },
};

/** Holds a mint at a test hook until released; `reached` resolves once the minter is held there. */
function gate() {
  let release!: () => void;
  let reach!: () => void;
  const opened = new Promise<void>((resolve) => (release = resolve));
  const reached = new Promise<void>((resolve) => (reach = resolve));
  return {
    hold: async () => {
      reach();
      await opened;
    },
    reached,
    release: () => release(),
  };
}

function tokensOf(world: SandboxedApps, index: number): SharedAccessTokens {
  return world.apps[index].app.get<AccessTokens, SharedAccessTokens>(AccessTokens);
}

async function metric(url: string, name: string): Promise<number> {
  const text = (await request(url).get('/metrics')).text;
  return text
    .split('\n')
    .filter((line) => line.startsWith(name))
    .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
}

describe('a failed or interrupted mint', () => {
  let world: SandboxedApps;

  afterEach(async () => {
    await world.close();
  });

  it('releases its re-mint claim: the next request mints a replacement instead of answering upstream_forbidden', async () => {
    world = await startSandboxedApps(1, PLENTY);
    const service = world.apps[0].url;
    await request(service).get('/checkout/listings/lst-seaside').expect(200);
    world.sandbox.control.revokeAllTokens();
    world.sandbox.control.forceStatus('token', 503, { times: 1 });

    const failed = await request(service).get('/checkout/listings/lst-city');
    expect(failed.status).toBe(503);
    expect(failed.body.code).toBe('upstream_unavailable');
    expect(failed.headers['retry-after']).toBeDefined();

    const next = await request(service).get('/checkout/listings/lst-mountain');
    expect(next.status).toBe(200);
    expect(world.sandbox.control.counters.tokensMinted).toBe(2);
    expect(await metric(service, 'upstream_token_claim_releases_total')).toBe(1);
  });

  it('makes a replica that sees the refused token wait for the replacement another replica is minting, never 502', async () => {
    world = await startSandboxedApps(3, PLENTY);
    for (const app of world.apps) await request(app.url).get('/checkout/listings/lst-seaside').expect(200);
    expect(world.sandbox.control.counters.tokensMinted).toBe(1);
    world.sandbox.control.revokeAllTokens();

    // Replica 0 claims the re-mint and is held there, before it takes the mint lock.
    const minter = gate();
    tokensOf(world, 0).testHooks.afterClaim = minter.hold;
    const first = request(world.apps[0].url).get('/checkout/listings/lst-city');
    const firstDone = first.then((answer) => answer);
    await minter.reached;

    // Replicas 1 and 2 see the same token refused while replica 0 holds the claim.
    const waiting = [1, 2].map((index) => new Promise<void>((resolve) => (tokensOf(world, index).testHooks.stillWaiting = resolve)));
    const others = Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        request(world.apps[1 + (i % 2)].url)
          .get(`/checkout/listings/lst-race-${i}`)
          .then((answer) => answer),
      ),
    );
    // Either both replicas looked, found no new token and keep waiting (then replica 0 may go on), or they answered.
    const settled = await Promise.race([Promise.all(waiting).then(() => 'waiting' as const), others.then(() => 'answered' as const)]);
    minter.release();
    const answers = await others;

    expect(settled).toBe('waiting');
    expect((await firstDone).status).toBe(200);
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 502)).toEqual([]);
    // Unknown listing ids: the replacement token read them and the upstream said 404.
    expect(statuses).toEqual(Array(40).fill(404));
    expect(world.sandbox.control.counters.tokensMinted).toBe(2);
  });

  it('still answers a fresh token refused with upstream_forbidden after one replacement, never a loop', async () => {
    world = await startSandboxedApps(2, PLENTY);
    await request(world.apps[0].url).get('/checkout/listings/lst-seaside').expect(200);
    world.sandbox.control.forceStatus('listing', 403, {
      body: { message: "You don't have permission to access, please contact Guesty support" },
    });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => request(world.apps[i % 2].url).get(`/checkout/listings/lst-denied-${i}`)),
    );
    expect(answers.map((answer) => answer.body.code)).toEqual(Array(20).fill('upstream_forbidden'));
    const again = await Promise.all(
      Array.from({ length: 10 }, (_, i) => request(world.apps[i % 2].url).get(`/checkout/listings/lst-denied-again-${i}`)),
    );
    expect(again.map((answer) => answer.body.code)).toEqual(Array(10).fill('upstream_forbidden'));
    expect(world.sandbox.control.counters.tokensMinted).toBe(2);
  });
});

describe('a day of refusals', () => {
  let world: SandboxedApps;

  afterAll(async () => {
    await world.close();
  });

  it('spends one token: bare 401s on quotes and worded 403s on listings, quiet minutes apart or not, on two replicas', async () => {
    world = await startSandboxedApps(2, { ...PLENTY, env: { ...PLENTY.env, CHECKOUT_IP_RATE_LIMIT: '10000/m' } });
    await request(world.apps[0].url).get('/checkout/listings/lst-seaside').expect(200);
    // Minutes between refusals: longer than any "the token just answered" window, and shorter.
    const quiet = [1, 7, 11, 61, 0.1, 30, 2];
    const codes: string[] = [];
    let elapsedMs = 0;
    for (let step = 0; elapsedMs < 22 * 3_600_000; step++) {
      const stepMs = quiet[step % quiet.length] * 60_000;
      elapsedMs += stepMs;
      for (const clock of world.clocks) clock.advance(stepMs);
      const replica = world.apps[step % 2].url;
      if (step % 2 === 0) {
        world.sandbox.control.forceStatus('createQuote', 401, { times: 1, body: {} });
        const answer = await bookingClient(replica).quote({ listingId: 'lst-seaside', ...stay(100 + step, 2), guestsCount: 2 });
        codes.push(answer.status === 201 || answer.status === 200 ? 'quoted' : answer.body.code);
      } else {
        world.sandbox.control.forceStatus('listing', 403, {
          times: 1,
          body: { message: "You don't have permission to access, please contact Guesty support" },
        });
        const answer = await request(replica).get(`/checkout/listings/lst-refused-${step}`);
        codes.push(answer.status === 404 ? 'read' : answer.body.code);
      }
    }
    expect(codes.length).toBeGreaterThan(50);
    // The first refusal replaced the token (its request went on with the new one); every later one is the platform's.
    expect(codes[0]).toBe('quoted');
    expect(new Set(codes.slice(1))).toEqual(new Set(['upstream_forbidden']));
    expect(world.sandbox.control.counters.tokensMinted).toBe(2);
    expect(await metric(world.apps[0].url, 'upstream_token_refusals_kept_total')).toBeGreaterThan(0);
  });
});

describe('a token minted just before Redis failed', () => {
  let redis: OwnRedis;
  let world: SandboxedApps;
  let client: Redis;

  beforeAll(async () => {
    redis = await startOwnRedis();
    world = await startSandboxedApps(2, { env: { ...PLENTY.env, REDIS_URL: redis.url }, sandbox: PLENTY.sandbox });
    client = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    client.on('error', () => undefined);
  });

  afterAll(async () => {
    client.disconnect();
    await redis.start().catch(() => undefined);
    await world.close();
    await redis.dispose();
  });

  it('is kept and used, and written back with its ledger entry once Redis is back, so no replica mints again', async () => {
    const keys = new RedisKeys(world.env.REDIS_KEY_PREFIX).accessToken(SANDBOX_CLIENT_ID);
    const minter = gate();
    tokensOf(world, 0).testHooks.afterMint = minter.hold;
    const first = request(world.apps[0].url)
      .get('/checkout/listings/lst-seaside')
      .then((answer) => answer);
    await minter.reached;
    await redis.stop();
    minter.release();

    expect((await first).status).toBe(200);
    await request(world.apps[0].url).get('/checkout/listings/lst-city').expect(200);
    expect(world.sandbox.control.counters.tokensMinted).toBe(1);

    // The restarted Redis is empty: the replica writes its token and the ledger's mint back.
    await redis.start();
    await waitUntil(async () => (await client.exists(keys.token).catch(() => 0)) === 1, 10_000, 'the token written back');
    await waitUntil(
      async () => JSON.parse((await client.get(keys.mintLedger).catch(() => null)) ?? '[]').length === 1,
      10_000,
      'the ledger written back',
    );

    await request(world.apps[1].url).get('/checkout/listings/lst-mountain').expect(200);
    expect(world.sandbox.control.counters.tokensMinted).toBe(1);
  });
});
