import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import request from 'supertest';
import { CARDS, cardBody, checkoutClient, freshReservation, SCALED_DOWN_WRITES } from '../utils/checkout-client';
import { waitUntil } from '../utils/redis-server';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';

/**
 * docs/product-spec.md §2 (`CHECKOUT_CARD_ATTEMPTS`) and §7: a card attempt is spent only by a press
 * whose card reached the platform. A press answered "try again" (`step_in_progress`,
 * `store_unavailable`, `outcome_pending`) tokenizes nothing and spends nothing, so a guest who pressed
 * while the service could not take the card still has every attempt once it can.
 */
const ATTEMPTS = 10;

/** The reservation's card-attempt window as Redis holds it: one member per attempt spent. */
async function attemptsSpent(world: SandboxedApps, reservationId: string): Promise<number> {
  const redis = new Redis(world.apps[0].config.redis.url!);
  try {
    return await redis.zcard(`${world.env.REDIS_KEY_PREFIX}{reservation:${reservationId}}:limit:card-attempts:w`);
  } finally {
    await redis.quit();
  }
}

function tokenizations(world: SandboxedApps): number {
  return world.sandbox.control.counters.requests.tokenize ?? 0;
}

/** A session on a reservation made at the platform, and the site's presses on it, each a new attempt (a new key). */
async function openSession(world: SandboxedApps) {
  const reservation = freshReservation(world, 300);
  const site = checkoutClient(world.apps[0].url);
  let opened: request.Response | undefined;
  // A store just emptied answers "try again" for a moment (the shared access token is minted anew).
  await waitUntil(
    async () => (opened = await site.createSession(reservation.reservationId, reservation.guestEmail)).status === 201,
    10_000,
    'a session opened',
  );
  const sessionId = opened!.body.id as string;
  return { reservation, sessionId, press: (card: string = CARDS.noThreeDs) => site.submit(sessionId, cardBody(card), randomUUID()) };
}

function expectTryAgain(answer: request.Response, status: number, code: string): void {
  expect({ status: answer.status, code: answer.body.code as unknown }).toEqual({ status, code });
  expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
}

describe('card attempts: presses answered "try again" spend none, and tokenize nothing', () => {
  let world: SandboxedApps;

  beforeAll(async () => {
    world = await startSandboxedApps(1, {
      // A settle horizon long enough for the presses below on a loaded machine; the test moves the clock past it.
      // Budget windows wide enough that presses in quick succession never wait past the scaled-down deadline: attempts are the subject here.
      env: {
        ...SCALED_DOWN_WRITES,
        WRITE_SETTLE_SECONDS: '60',
        CHECKOUT_CARD_ATTEMPTS: `${ATTEMPTS}/h`,
        UPSTREAM_RATE_LIMITS: '100/s,1000/m,10000/h',
      },
      sandbox: { paymentVisibilityDelayMs: 0, rateLimits: { perSecond: 100, perMinute: 1000, perHour: 10000 } },
    });
  });
  afterEach(() => world.sandbox.control.clearFaults());
  afterAll(() => world.close());

  // First, while the world is fresh: an emptied store forgets the platform calls made before it, not the platform.
  it('11 presses while writes are held after the store came back empty: 409 step_in_progress each, nothing tokenized, and the card is taken once the hold ends', async () => {
    // Redis emptied under the running service: every key of its prefix is gone, the journal's generation with them.
    const redis = new Redis(world.apps[0].config.redis.url!);
    const keys = await world.apps[0].redisKeys();
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
    const { reservation, press } = await openSession(world);
    const before = tokenizations(world);
    for (let attempt = 0; attempt < ATTEMPTS + 1; attempt++) {
      const held = await press();
      expectTryAgain(held, 409, 'step_in_progress');
      expect(Number(held.headers['retry-after'])).toBeLessThanOrEqual(60);
    }
    expect(tokenizations(world)).toBe(before);
    expect(await attemptsSpent(world, reservation.reservationId)).toBe(0);

    // The hold ends (the settle horizon has passed since the loss was found): the guest's next press pays.
    world.clocks[0].advance(61_000);
    const paid = await press();
    expect(paid.body).toMatchObject({ status: 'succeeded', paymentMethod: { last4: '4242' } });
    expect(paid.status).toBe(200);
    expect(tokenizations(world)).toBe(before + 1);
    expect(await attemptsSpent(world, reservation.reservationId)).toBe(1);
  });

  it('a flood of declined cards still meets 429 after CHECKOUT_CARD_ATTEMPTS, and the next card is not tokenized', async () => {
    const { reservation, press } = await openSession(world);
    const before = tokenizations(world);
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) expect((await press(CARDS.declined)).body.code).toBe('card_declined');
    expect(tokenizations(world)).toBe(before + ATTEMPTS);
    const refused = await press(CARDS.declined);
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(tokenizations(world)).toBe(before + ATTEMPTS);
    expect(await attemptsSpent(world, reservation.reservationId)).toBe(ATTEMPTS);
  });

  it('presses while an earlier attach is being confirmed (503 outcome_pending) spend no attempt and tokenize nothing', async () => {
    const { reservation, press } = await openSession(world);
    world.sandbox.control.slowWrite('paymentMethods', { actAfterMs: 120_000, answerAfterMs: 120_500, times: 1 });
    const acted = world.sandbox.control.whenActed('paymentMethods');
    // The first press's card reached the platform (tokenized, attach sent): its attempt is spent.
    const first = await press();
    expect({ status: first.status, body: first.body }).toMatchObject({ status: 503, body: { code: 'outcome_pending' } });
    const tokenized = tokenizations(world);
    for (let again = 0; again < ATTEMPTS + 1; again++) expectTryAgain(await press('5555555555554444'), 503, 'outcome_pending');
    expect(tokenizations(world)).toBe(tokenized);
    expect(await attemptsSpent(world, reservation.reservationId)).toBe(1);
    expect(world.sandbox.control.actNow('paymentMethods')).toBe(1);
    await acted;
  });
});

describe('card attempts: a press the store cannot keep safely (REDIS_WAIT_REPLICAS, no replica) spends none', () => {
  let world: SandboxedApps;

  beforeAll(async () => {
    // The shared test Redis has no replica: no intent is ever acknowledged.
    world = await startSandboxedApps(1, {
      env: {
        CHECKOUT_CARD_ATTEMPTS: `${ATTEMPTS}/h`,
        CHECKOUT_IP_RATE_LIMIT: '1000/m',
        REDIS_WAIT_REPLICAS: '1',
        REDIS_WAIT_TIMEOUT_MS: '20',
      },
    });
  });
  afterAll(() => world.close());

  it('every press answers 503 store_unavailable, the 11th too (never 429), and no card reaches the platform', async () => {
    const { reservation, press } = await openSession(world);
    for (let attempt = 0; attempt < ATTEMPTS + 1; attempt++) expectTryAgain(await press(), 503, 'store_unavailable');
    expect(tokenizations(world)).toBe(0);
    expect(world.sandbox.control.counters.requests.paymentMethods ?? 0).toBe(0);
    expect(await attemptsSpent(world, reservation.reservationId)).toBe(0);
  });
});
