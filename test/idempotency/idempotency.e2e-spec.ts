import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import request from 'supertest';
import { IDEMPOTENCY_RECORD_TTL_MS } from '../../src/common/idempotency/idempotency.service';
import { idempotencyClaimMs } from '../../src/config/timing-rules';
import { startOwnRedis } from '../utils/redis-server';
import { startTestApp, TestApp } from '../utils/test-app';
import { testRedisUrl } from '../utils/test-config';
import { Gate, IdempotencyProbeModule, probe } from './idempotency-probe.module';

const CARD_NUMBER = '4111111111111111';

function cardBody(number = CARD_NUMBER) {
  return { card: { number, exp_month: '12', exp_year: '2031', cvc: '737' }, billing_details: { name: 'Olivia Guest' } };
}

function newKey(): string {
  return `key-${randomUUID()}`;
}

describe('Idempotency-Key on write routes', () => {
  let first: TestApp;
  let second: TestApp;
  let redis: Redis;

  const post = (app: TestApp, key: string | undefined, body: object = cardBody(), target = 'session-a') => {
    const call = request(app.url).post(`/test/idempotent/${target}`);
    return (key === undefined ? call : call.set('Idempotency-Key', key)).send(body);
  };

  const idempotencyKeys = async () => (await first.redisKeys()).filter((key) => key.includes(':idempotency:')).sort();

  beforeAll(async () => {
    first = await startTestApp({}, { extraModules: [IdempotencyProbeModule] });
    // A second replica of the same deployment: same Redis, same key prefix.
    second = await startTestApp({ REDIS_KEY_PREFIX: first.config.redis.keyPrefix }, { extraModules: [IdempotencyProbeModule] });
    redis = new Redis(testRedisUrl());
  });

  afterAll(async () => {
    redis.disconnect();
    await second.close();
    await first.close();
  });

  beforeEach(() => probe.reset());
  // A held request must not outlive a failed test: it would hang up when the apps close.
  afterEach(() => probe.hold?.open());

  it('answers the same key and body with the first answer, without running the work again', async () => {
    const key = newKey();
    const answer = await post(first, key).expect(201);
    expect(answer.body).toEqual({ run: 1, accepted: true });
    expect(answer.headers['idempotent-replayed']).toBe('false');

    const { card, billing_details } = cardBody();
    const replay = await post(first, key, {
      billing_details,
      card: { cvc: card.cvc, exp_year: card.exp_year, exp_month: card.exp_month, number: card.number },
    }).expect(201);
    expect(replay.body).toEqual(answer.body);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(probe.runs).toBe(1);

    const metrics = await request(first.url).get('/metrics').expect(200);
    expect(metrics.text).toMatch(/idempotent_replays_total\{scope="probe"\} 1/);
  });

  it('replays on another replica sharing the key prefix', async () => {
    const key = newKey();
    const answer = await post(first, key).expect(201);
    const replay = await post(second, key).expect(201);
    expect(replay.body).toEqual(answer.body);
    expect(probe.runs).toBe(1);
  });

  it('keeps scopes apart: the same key on another target runs on its own', async () => {
    const key = newKey();
    await post(first, key, cardBody(), 'session-a').expect(201);
    const other = await post(first, key, cardBody(), 'session-b').expect(201);
    expect(other.headers['idempotent-replayed']).toBe('false');
    expect(probe.runs).toBe(2);
  });

  it('refuses the same key with another body (422) without running the work', async () => {
    const key = newKey();
    await post(first, key).expect(201);
    const conflict = await post(second, key, cardBody('5555555555554444')).expect(422);
    expect(conflict.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(conflict.body.code).toBe('idempotency_conflict');
    expect(probe.runs).toBe(1);
  });

  it('answers 409 with Retry-After while the first request still runs, then replays its answer', async () => {
    const key = newKey();
    const before = await idempotencyKeys();
    probe.hold = new Gate();
    const running = post(first, key).then((res) => res);
    await probe.started.opened;

    const [record] = (await idempotencyKeys()).filter((name) => !before.includes(name));
    const claimTtl = await redis.pttl(record);
    expect(claimTtl).toBeGreaterThan(0);
    expect(claimTtl).toBeLessThanOrEqual(idempotencyClaimMs({ reservationLeaseMs: first.config.reservationWrites.leaseMs }));

    for (const app of [first, second]) {
      const busy = await post(app, key).expect(409);
      expect(busy.body.code).toBe('idempotency_in_progress');
      expect(busy.headers['retry-after']).toBe('1');
    }
    const conflict = await post(second, key, cardBody('5555555555554444')).expect(422);
    expect(conflict.body.code).toBe('idempotency_conflict');

    probe.hold.open();
    const answer = await running;
    expect(answer.status).toBe(201);
    expect(await redis.pttl(record)).toBeGreaterThan(IDEMPOTENCY_RECORD_TTL_MS - 60_000);
    const replay = await post(second, key).expect(201);
    expect(replay.body).toEqual(answer.body);
    expect(probe.runs).toBe(1);
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['too short', 'abc1234'],
    ['too long', 'k'.repeat(129)],
    ['with other characters', 'key with spaces!'],
  ])('refuses a %s Idempotency-Key with 400 before anything else happens', async (_case, key) => {
    const before = await idempotencyKeys();
    const res = await post(first, key).expect(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.errors).toEqual([{ field: 'Idempotency-Key', message: expect.any(String) }]);
    expect(probe.runs).toBe(0);
    expect(await idempotencyKeys()).toEqual(before);
  });

  it('replays a final error answer (a decline) with the same problem', async () => {
    const declinedKey = newKey();
    probe.outcome = 'declined';
    const declined = await post(first, declinedKey).expect(402);

    probe.outcome = 'answer';
    const declinedAgain = await post(second, declinedKey).expect(402);
    expect({ ...declinedAgain.body, requestId: undefined }).toEqual({ ...declined.body, requestId: undefined });
    expect(declinedAgain.body.code).toBe('card_declined');
    expect(probe.runs).toBe(1);
  });

  it.each([
    ['an unavailable upstream (503)', 'upstream' as const, 503],
    ['an unexpected error (500)', 'crash' as const, 500],
    ['a "try again" conflict with Retry-After (409)', 'busy' as const, 409],
    ['a refusal of the body (400): it changed nothing, and a record per refusal would fill Redis', 'invalid' as const, 400],
  ])('does not keep %s: the same key may try again', async (_case, outcome, status) => {
    const key = newKey();
    const before = await idempotencyKeys();
    probe.outcome = outcome;
    await post(first, key).expect(status);
    expect(await idempotencyKeys()).toEqual(before);

    probe.outcome = 'answer';
    const retry = await post(second, key).expect(201);
    expect(retry.body).toEqual({ run: 2, accepted: true });
  });

  it('keeps neither the card number nor the raw key in Redis: key names and values hold digests', async () => {
    const rawKey = `RAW-KEY-${randomUUID()}`;
    await post(first, rawKey).expect(201);
    probe.outcome = 'declined';
    await post(first, `RAW-KEY-${randomUUID()}`).expect(402);
    const keys = await first.redisKeys();
    expect(keys.length).toBeGreaterThan(0);
    const stored = await Promise.all(
      keys.map(
        async (key) =>
          `${key} ${(await redis.type(key)) === 'string' ? ((await redis.get(key)) ?? '') : (await redis.zrange(key, 0, -1)).join(' ')}`,
      ),
    );
    const everything = stored.join('\n');
    expect(everything).not.toContain(CARD_NUMBER);
    expect(everything).not.toContain('RAW-KEY');
    expect(everything).not.toContain('Olivia');
    expect(everything).not.toMatch(/"cvc"|"card"/);
  });
});

describe('Idempotency-Key while Redis is down', () => {
  it('answers 503 store_unavailable and never runs the work without its record', async () => {
    const own = await startOwnRedis();
    const app = await startTestApp({ REDIS_URL: own.url }, { extraModules: [IdempotencyProbeModule] });
    try {
      probe.reset();
      await own.stop();
      const res = await request(app.url).post('/test/idempotent/session-a').set('Idempotency-Key', newKey()).send(cardBody()).expect(503);
      expect(res.body.code).toBe('store_unavailable');
      expect(res.headers['retry-after']).toBe('1');
      expect(probe.runs).toBe(0);
    } finally {
      // Back up before closing, so neither the app nor the test's cleanup client keeps reconnecting.
      await own.start();
      await app.close();
      await own.stop();
    }
  });
});
