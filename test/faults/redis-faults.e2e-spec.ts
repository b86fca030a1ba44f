import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import request from 'supertest';
import { RedisKeys } from '../../src/redis/redis-keys';
import { SANDBOX_CLIENT_ID } from '../../sandbox/types';
import { cardBody, checkoutClient, freshReservation } from '../utils/checkout-client';
import { figures, latencySummary, Load, Shot, ShotRequest, shoot, startLoad, statusCounts, waitFor } from '../utils/load';
import { OwnRedis, startOwnRedis, waitUntil } from '../utils/redis-server';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';
import { startTestApp } from '../utils/test-app';
import { testConfig } from '../utils/test-config';

/*
 * Redis commands time out after 1 s: requests sent while Redis is down or hung are answered before it
 * is back (the load's answers are awaited while the fault lasts), which proves the bound; how long
 * they took is printed as figures, never asserted (on a loaded machine it is the machine's).
 */
const CONCURRENCY = 10;

/** What the load sends, and what each answers while Redis is there. */
const HEALTHY: Record<string, number> = { createSession: 201, getSession: 200, paymentMethod: 409, listing: 200 };
const NEEDS_REDIS = new Set(['createSession', 'getSession', 'paymentMethod']);

describe('Redis faults under load (own redis-server, 2 replicas)', () => {
  let redis: OwnRedis;
  let world: SandboxedApps;
  let raw: Redis;
  let keys: RedisKeys;
  /** A session whose payment method is attached: the load reads it and submits to it (409 while Redis is up). */
  let paid: { id: string; guestId: string; key: string; answer: Record<string, unknown> };

  /** Loads of the running test, stopped after it whatever happened (a failed wait must not leave workers running). */
  const loads: Load[] = [];
  const startTestLoad = () => {
    const load = startLoad(CONCURRENCY, loadRequest);
    loads.push(load);
    return load;
  };
  afterEach(async () => {
    await Promise.all(loads.splice(0).map((load) => load.stop()));
  });

  const urls = () => world.apps.map((app) => app.url);
  const readiness = async (url: string) => (await shoot({ op: 'ready', target: url, url: `${url}/health/ready`, timeoutMs: 5_000 })).status;
  const allReadiness = async (status: number) => (await Promise.all(urls().map(readiness))).every((answer) => answer === status);

  /** The load: session create, session read, payment-method submission and a cached listing read, on both replicas. */
  function loadRequest(worker: number, turn: number): ShotRequest {
    const op = Object.keys(HEALTHY)[(worker + turn) % 4];
    const target = (worker + Math.floor(turn / 4)) % 2;
    const url = world.apps[target].url;
    const base = { op, target: String(target), timeoutMs: 10_000 };
    if (op === 'createSession') {
      const reservation = freshReservation(world);
      return {
        ...base,
        method: 'POST',
        url: `${url}/checkout/sessions`,
        json: { reservationId: reservation.reservationId, email: reservation.guestEmail },
      };
    }
    if (op === 'getSession') return { ...base, url: `${url}/checkout/sessions/${paid.id}` };
    if (op === 'paymentMethod') {
      return {
        ...base,
        method: 'POST',
        url: `${url}/checkout/sessions/${paid.id}/payment-method`,
        json: cardBody(),
        headers: { 'Idempotency-Key': randomUUID() },
      };
    }
    return { ...base, url: `${url}/checkout/listings/lst-seaside` };
  }

  /** Waits until at least `count` answers of requests sent after `since` came back (and match `also`). */
  const answersAfter = (load: Load, since: number, count: number, also: (shot: Shot) => boolean = () => true) =>
    waitFor(
      () => load.shots.filter((shot) => shot.startedAt >= since && also(shot)).length >= count,
      15_000,
      `${count} answers after the fault`,
    );

  /** Both replicas answer a session creation with 201 again, for requests sent after `since`. */
  const recoveredOnBoth = (load: Load, since: number) =>
    answersAfter(load, since, 2, (shot) => shot.op === 'createSession' && shot.status === 201).then(() =>
      waitFor(
        () =>
          ['0', '1'].every((target) =>
            load.shots.some(
              (shot) => shot.startedAt >= since && shot.target === target && shot.op === 'createSession' && shot.status === 201,
            ),
          ),
        10_000,
        'a created session on each replica',
      ),
    );

  /** Every answer was complete, and either the healthy answer or a clean store_unavailable 503 (problem+json, Retry-After). */
  function expectCorrectAnswers(shots: Shot[]): void {
    for (const shot of shots) {
      expect({ op: shot.op, answered: shot.status > 0, error: shot.error }).toEqual({ op: shot.op, answered: true, error: undefined });
      if (shot.status === HEALTHY[shot.op]) continue;
      expect({ op: shot.op, status: shot.status, code: shot.code }).toEqual({ op: shot.op, status: 503, code: 'store_unavailable' });
      expect(NEEDS_REDIS.has(shot.op)).toBe(true);
      expect(shot.contentType).toMatch(/^application\/problem\+json/);
      expect(shot.retryAfter).toBe('1');
    }
  }

  /** Every request was answered (the failure names the request). */
  function expectAllAnswered(shots: Shot[]): void {
    expect(shots.length).toBeGreaterThan(0);
    for (const shot of shots) {
      const sent = { op: shot.op, replica: shot.target, error: shot.error };
      expect({ ...sent, answered: shot.status > 0 }).toEqual({ ...sent, answered: true });
    }
  }

  /** Requests sent once the fault was in place and answered before it ended: the outage's answers. */
  function expectOutageAnswers(shots: Shot[], from: number, until: number): Shot[] {
    const during = shots.filter((shot) => shot.startedAt >= from && shot.startedAt + shot.ms <= until);
    for (const op of Object.keys(HEALTHY)) expect(during.filter((shot) => shot.op === op).length).toBeGreaterThan(0);
    for (const shot of during) {
      if (NEEDS_REDIS.has(shot.op))
        expect({ op: shot.op, status: shot.status, code: shot.code }).toEqual({ op: shot.op, status: 503, code: 'store_unavailable' });
      else expect({ op: shot.op, status: shot.status }).toEqual({ op: shot.op, status: 200 });
    }
    return during;
  }

  beforeAll(async () => {
    // AOF with fsync on every write: a killed server comes back with everything it acknowledged.
    redis = await startOwnRedis({ persistent: true });
    world = await startSandboxedApps(2, {
      env: {
        REDIS_URL: redis.url,
        CHECKOUT_IP_RATE_LIMIT: '100000/m',
        CHECKOUT_IP_READ_LIMIT: '100000/m',
        CHECKOUT_CARD_ATTEMPTS: '1000/h',
        // Redis is the subject: a replica's local budget while it is down (a third of each window) must
        // hold the load's session opens in flight beside the uncached listing reads, on a busy machine too.
        UPSTREAM_RATE_LIMITS: '1000/s,60000/m,1000000/h',
      },
      sandbox: { paymentVisibilityDelayMs: 0, rateLimits: { perSecond: 1000, perMinute: 60000, perHour: 1000000 } },
    });
    raw = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    raw.on('error', () => undefined);
    keys = new RedisKeys(world.env.REDIS_KEY_PREFIX);

    const reservation = freshReservation(world);
    const site = checkoutClient(world.apps[0].url);
    const created = await site.createSession(reservation.reservationId, reservation.guestEmail).expect(201);
    const key = randomUUID();
    const submitted = await site.submit(created.body.id as string, cardBody(), key).expect(200);
    expect(submitted.body.status).toBe('succeeded');
    paid = { id: created.body.id as string, guestId: reservation.guestId, key, answer: submitted.body as Record<string, unknown> };
    // The second replica takes its copy of the token from Redis.
    const other = freshReservation(world);
    await checkoutClient(world.apps[1].url).createSession(other.reservationId, other.guestEmail).expect(201);
    expect(world.sandbox.control.counters.tokensMinted).toBe(1);
  });

  afterAll(async () => {
    redis?.resume();
    await redis?.start().catch(() => undefined);
    raw?.disconnect();
    await world?.close();
    await redis?.dispose();
  });

  it('killed: liveness 200, readiness 503, clean 503s while it is down, cached-token reads go on; back: ready without a restart, nothing acknowledged lost', async () => {
    const ledgerKey = keys.accessToken(SANDBOX_CLIENT_ID).mintLedger;
    const recordKey = keys.sessionIdempotencyRecord(RedisKeys.sessionRef(paid.id), `payment-method:${paid.id}`, paid.key);
    const ledgerBefore = await raw.get(ledgerKey);
    expect(JSON.parse(ledgerBefore!)).toHaveLength(1);
    expect(JSON.parse((await raw.get(recordKey))!)).toMatchObject({ state: 'done' });

    const load = startTestLoad();
    await answersAfter(load, 0, 20, (shot) => shot.op === 'createSession' && shot.status === 201);
    const killing = Date.now();
    await redis.stop();
    const killed = Date.now();

    await waitUntil(() => allReadiness(503), 5_000, 'readiness 503 on both replicas');
    const notReadyAfterMs = Date.now() - killed;
    for (const url of urls()) await request(url).get('/health/live').expect(200);
    // Listings no replica has read yet: the cached token and the local outbound budget are enough.
    const uncached = await Promise.all([
      shoot({ op: 'listing', target: '0', url: `${world.apps[0].url}/checkout/listings/lst-city` }),
      shoot({ op: 'listing', target: '1', url: `${world.apps[1].url}/checkout/listings/lst-mountain` }),
    ]);
    expect(uncached.map((shot) => [shot.status, (shot.body as { city?: string; code?: string }).city ?? shot.body])).toEqual([
      [200, 'Paris'],
      [200, 'Aviemore'],
    ]);
    await answersAfter(load, killed, 40);

    const restarting = Date.now();
    await redis.start();
    await waitUntil(() => allReadiness(200), 10_000, 'readiness 200 on both replicas after Redis returned');
    const readyAgainAfterMs = Date.now() - restarting;
    await recoveredOnBoth(load, Date.now());
    const shots = await load.stop();

    expectCorrectAnswers(shots);
    expectAllAnswered(shots);
    const during = expectOutageAnswers(shots, killed, restarting);
    expect(world.sandbox.control.counters.tokensMinted).toBe(1);

    // Nothing Redis acknowledged before the kill is lost: every session created, the idempotency
    // record (a replay answers the stored success and attaches nothing) and the mint ledger.
    const acknowledged = shots.filter((shot) => shot.op === 'createSession' && shot.status === 201 && shot.startedAt + shot.ms < killing);
    expect(acknowledged.length).toBeGreaterThanOrEqual(20);
    for (const [index, shot] of acknowledged.entries()) {
      const id = (shot.body as { id: string }).id;
      const read = await request(world.apps[index % 2].url).get(`/checkout/sessions/${id}`);
      expect({ id, status: read.status }).toEqual({ id, status: 200 });
    }
    const session = await request(world.apps[1].url).get(`/checkout/sessions/${paid.id}`).expect(200);
    expect(session.body).toMatchObject({ status: 'succeeded', paymentMethod: paid.answer.paymentMethod });
    const attachesBefore = world.sandbox.control.counters.requests.paymentMethods;
    const replay = await checkoutClient(world.apps[1].url).submit(paid.id, cardBody(), paid.key).expect(200);
    expect(replay.body).toEqual(paid.answer);
    expect(world.sandbox.control.counters.requests.paymentMethods).toBe(attachesBefore);
    expect(world.sandbox.control.getPaymentMethods(paid.guestId)).toHaveLength(1);
    expect(JSON.parse((await raw.get(recordKey))!)).toMatchObject({ state: 'done' });
    // (The replicas also hold the ledger and write it back if Redis lost it: the flush test below.)
    expect(await raw.get(ledgerKey)).toBe(ledgerBefore);

    figures(
      `Redis killed: readiness 503 after ${notReadyAfterMs} ms, ready again ${readyAgainAfterMs} ms after the restart; ` +
        `during the outage ${JSON.stringify(statusCounts(during))}, needing Redis ${latencySummary(during.filter((shot) => NEEDS_REDIS.has(shot.op)))}, ` +
        `listing reads ${latencySummary(during.filter((shot) => shot.op === 'listing'))}, uncached listings ${uncached.map((shot) => Math.round(shot.ms)).join('/')} ms; ` +
        `whole run ${latencySummary(shots)}, ${acknowledged.length} sessions acknowledged before the kill all read back`,
    );
  });

  describe('hung (SIGSTOP) under load, then SIGCONT', () => {
    let shots: Shot[] = [];
    let paused = 0;
    let resumed = 0;
    let readyAgainAfterMs = 0;
    let live: number[] = [];

    // One hang for both tests below: the first checks what a client sees, the second how long it waited.
    beforeAll(async () => {
      const load = startLoad(CONCURRENCY, loadRequest);
      try {
        await answersAfter(load, 0, 20, (shot) => shot.status === HEALTHY[shot.op]);
        redis.pause();
        paused = Date.now();
        try {
          await waitUntil(() => allReadiness(503), 5_000, 'readiness 503 on both replicas');
          live = await Promise.all(urls().map(async (url) => (await request(url).get('/health/live')).status));
          await answersAfter(load, paused, 30);
        } finally {
          resumed = Date.now();
          redis.resume();
        }
        await waitUntil(() => allReadiness(200), 10_000, 'readiness 200 on both replicas after SIGCONT');
        readyAgainAfterMs = Date.now() - resumed;
        await recoveredOnBoth(load, Date.now());
      } finally {
        shots = await load.stop();
      }
      const during = shots.filter((shot) => shot.startedAt >= paused && shot.startedAt + shot.ms <= resumed);
      const midway = shots.filter((shot) => shot.startedAt < paused && shot.startedAt + shot.ms > paused);
      figures(
        `Redis hung: requests sent during the hang ${JSON.stringify(statusCounts(during))}, needing Redis ${latencySummary(during.filter((shot) => NEEDS_REDIS.has(shot.op)))}, ` +
          `listing reads ${latencySummary(during.filter((shot) => shot.op === 'listing'))}; caught mid-way ${JSON.stringify(statusCounts(midway))} ${latencySummary(midway)}; ` +
          `ready again ${readyAgainAfterMs} ms after SIGCONT; whole run ${latencySummary(shots)}`,
      );
    });

    it('liveness 200, readiness 503, clean 503s before SIGCONT for requests that need Redis, cached-token reads answered; SIGCONT recovers', () => {
      expect(live).toEqual([200, 200]);
      expectCorrectAnswers(shots);
      // Answered while Redis still hung: only the command timeout can have ended them.
      expectOutageAnswers(shots, paused, resumed);
      expect(world.sandbox.control.counters.tokensMinted).toBe(1);
    });

    it('answers every request, also reads that need only the cached token and requests mid-way when Redis hung', () => {
      expectAllAnswered(shots);
    });
  });

  it('flushed (FLUSHALL) under load: no new token is minted while a replica holds a valid copy', async () => {
    const tokenKey = keys.accessToken(SANDBOX_CLIENT_ID).token;
    const ledgerKey = keys.accessToken(SANDBOX_CLIENT_ID).mintLedger;
    const ledgerBefore = await raw.get(ledgerKey);
    expect(await raw.exists(tokenKey)).toBe(1);
    // A third replica that has not needed a token yet: after the flush it finds none anywhere.
    const fresh = await startTestApp({}, { config: testConfig({ ...world.env, PORT: '0' }) });
    try {
      const load = startTestLoad();
      await answersAfter(load, 0, 20, (shot) => shot.status === HEALTHY[shot.op]);
      await raw.flushall();
      const flushed = Date.now();
      const reservation = freshReservation(world);
      const started = Date.now();
      await checkoutClient(fresh.url).createSession(reservation.reservationId, reservation.guestEmail).expect(201);
      const freshReplicaMs = Date.now() - started;
      await waitUntil(async () => (await raw.exists(tokenKey, ledgerKey)) === 2, 5_000, 'the token and the ledger written back');
      await recoveredOnBoth(load, Date.now());
      const shots = await load.stop();

      expect(world.sandbox.control.counters.tokensMinted).toBe(1);
      expect(await raw.get(ledgerKey)).toBe(ledgerBefore);
      // The flush loses the sessions (the load's reads of the paid session turn 404); nothing fails.
      for (const shot of shots) {
        const answer = { op: shot.op, status: shot.status, code: shot.code, error: shot.error };
        const fine = shot.status === HEALTHY[shot.op] || (shot.status === 404 && shot.code === 'session_not_found');
        expect({ ...answer, fine }).toEqual({ ...answer, fine: true });
      }
      figures(
        `Redis flushed: ${JSON.stringify(statusCounts(shots.filter((shot) => shot.startedAt >= flushed)))} after the flush, ` +
          `a replica without a token answered in ${freshReplicaMs} ms, tokens minted ${world.sandbox.control.counters.tokensMinted}`,
      );
    } finally {
      await fresh.close();
    }
  });
});
