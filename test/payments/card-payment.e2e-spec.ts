import { randomUUID } from 'node:crypto';
import { CARDS, cardBody, checkoutClient, CVC, freshReservation } from '../utils/checkout-client';
import { waitUntil } from '../utils/redis-server';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';
import { awaitCharge, sandboxPayments } from '../utils/charges';

const SETTLE_DELAY_MS = 500;

describe('paying with a card', () => {
  let world: SandboxedApps;

  beforeAll(async () => {
    world = await startSandboxedApps(2, {
      env: { CHECKOUT_CARD_ATTEMPTS: '3/h' },
      sandbox: { paymentVisibilityDelayMs: 0, chargeSettleDelayMs: SETTLE_DELAY_MS },
    });
  });

  afterAll(() => world.close());

  const site = (index = 0) => checkoutClient(world.apps[index].url);

  async function newSession(balance = 250) {
    const reservation = freshReservation(world, balance);
    const created = await site(0).createSession(reservation.reservationId, reservation.guestEmail).expect(201);
    return { ...reservation, sessionId: created.body.id as string };
  }

  it('tokenizes with the listing provider and attaches at once when no 3-D Secure is needed', async () => {
    const { sessionId, reservationId } = await newSession();
    const paid = await site(0).submit(sessionId, cardBody(CARDS.noThreeDs)).expect(200);
    expect(paid.body).toMatchObject({
      id: sessionId,
      status: 'succeeded',
      paymentMethod: { id: expect.any(String), last4: '4242', brand: 'visa' },
    });
    expect(paid.body.lastError).toBeUndefined();
    // Attaching charges nothing by itself: the balance is scheduled (due now, lst-seaside charges all
    // at booking), and the platform charges it a moment later.
    expect(sandboxPayments(world, reservationId).map((payment) => [payment.status, payment.amount])).toEqual([['PENDING', 250]]);
    await awaitCharge(world, reservationId, 'SUCCEEDED', SETTLE_DELAY_MS);
    expect(sandboxPayments(world, reservationId).map((payment) => [payment.status, payment.amount])).toEqual([['SUCCEEDED', 250]]);
    expect(world.sandbox.control.counters.tokenizeWithAuthorization).toBe(0);
    await site(1)
      .getSession(sessionId)
      .expect(200)
      .expect((res) => expect(res.body.status).toBe('succeeded'));
  });

  it('takes the American Express test card of the site guide, with its 4-digit code', async () => {
    const { sessionId } = await newSession();
    const paid = await site(1)
      .submit(sessionId, cardBody('378282246310005', { card: { cvc: '1234' } }))
      .expect(200);
    expect(paid.body).toMatchObject({ status: 'succeeded', paymentMethod: { last4: '0005', brand: 'amex' } });
  });

  it('refuses another card for a session that already succeeded', async () => {
    const { sessionId } = await newSession();
    await site(0).submit(sessionId, cardBody()).expect(200);
    const again = await site(0).submit(sessionId, cardBody()).expect(409);
    expect(again.body.code).toBe('invalid_state');
  });

  it('answers a decline with card_declined, records it, and lets a new card succeed', async () => {
    const { sessionId } = await newSession();
    const declined = await site(0).submit(sessionId, cardBody(CARDS.declined)).expect(402);
    expect(declined.body.code).toBe('card_declined');
    const failed = await site(1).getSession(sessionId).expect(200);
    expect(failed.body).toMatchObject({ status: 'failed', lastError: { code: 'card_declined' } });
    const paid = await site(1).submit(sessionId, cardBody(CARDS.noThreeDs)).expect(200);
    expect(paid.body.status).toBe('succeeded');
    expect(paid.body.lastError).toBeUndefined();
  });

  it('explains a faulty payment account to the guest and names it for operators, without retrying', async () => {
    const { sessionId } = await newSession();
    const before = world.sandbox.control.counters.requests.tokenize ?? 0;
    const res = await site(0).submit(sessionId, cardBody(CARDS.accountFaulty)).expect(502);
    expect(res.body.code).toBe('payment_account_unavailable');
    // What README's test-card table promises the site: a 502 to retry later, never a 402 decline of the guest's card.
    expect(res.headers['retry-after']).toBe('300');
    expect(res.body.detail).toMatch(/could not be processed/);
    expect(world.sandbox.control.counters.requests.tokenize).toBe(before + 1);
    const logs = world.apps.flatMap((app) => app.logs.entries());
    expect(
      logs.some(
        (entry) =>
          entry.level === 'error' &&
          String(entry.msg).includes('payment account is faulty or offline') &&
          entry.paymentProviderId === 'pp-seaside',
      ),
    ).toBe(true);
    await site(0)
      .getSession(sessionId)
      .expect(200)
      .expect((r) => expect(r.body).toMatchObject({ status: 'failed', lastError: { code: 'payment_account_unavailable' } }));
  });

  it('attaches a token made with the upstream form, card data never seen', async () => {
    const { sessionId } = await newSession();
    const tokenized = await fetch(`${world.sandbox.urls.payUrl}/api/tokenize/v2`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        ...cardBody(CARDS.noThreeDs),
        paymentProviderId: 'pp-seaside',
        listingId: 'lst-seaside',
        threeDS: { amount: 250, currency: 'USD' },
      }),
    });
    const { _id } = (await tokenized.json()) as { _id: string };
    const paid = await site(0).submit(sessionId, { token: _id }).expect(200);
    expect(paid.body).toMatchObject({ status: 'succeeded', paymentMethod: { id: expect.any(String) } });
  });

  it('limits card submissions per reservation, and invalid bodies do not count', async () => {
    const { sessionId } = await newSession();
    await site(0).submit(sessionId, cardBody('4242424242424241')).expect(400);
    await site(0).submit(sessionId, cardBody(CARDS.declined)).expect(402);
    await site(1).submit(sessionId, cardBody(CARDS.declined)).expect(402);
    await site(0).submit(sessionId, cardBody(CARDS.declined)).expect(402);
    const before = world.sandbox.control.counters.requests.tokenize;
    const limited = await site(1).submit(sessionId, cardBody(CARDS.noThreeDs)).expect(429);
    expect(limited.body.code).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(world.sandbox.control.counters.requests.tokenize).toBe(before);
    const other = await newSession();
    await site(0).submit(other.sessionId, cardBody()).expect(200);
  });

  describe('Idempotency-Key', () => {
    it('replays the first answer for the same key and body without a second upstream call', async () => {
      const { sessionId } = await newSession();
      const key = randomUUID();
      const first = await site(0).submit(sessionId, cardBody(), key).expect(200);
      const tokenizations = world.sandbox.control.counters.requests.tokenize;
      const replay = await site(1).submit(sessionId, cardBody(), key).expect(200);
      expect(replay.body).toEqual(first.body);
      expect(world.sandbox.control.counters.requests.tokenize).toBe(tokenizations);
    });

    it('refuses the same key with another body (422) and a missing key (400)', async () => {
      const { sessionId } = await newSession();
      const key = randomUUID();
      await site(0).submit(sessionId, cardBody(CARDS.declined), key).expect(402);
      const conflict = await site(0).submit(sessionId, cardBody(CARDS.noThreeDs), key).expect(422);
      expect(conflict.body.code).toBe('idempotency_conflict');
      const missing = await site(0).submit(sessionId, cardBody(), '').expect(400);
      expect(JSON.stringify(missing.body.errors)).toContain('Idempotency-Key');
    });

    it('tells a short key the format it broke, not "is required", and sends nothing', async () => {
      const { sessionId } = await newSession();
      const tokenizations = world.sandbox.control.counters.requests.tokenize;
      const short = await site(0).submit(sessionId, cardBody(), 'abc123').expect(400);
      expect(short.body.errors).toEqual([
        {
          field: 'Idempotency-Key',
          message:
            'the Idempotency-Key header must be 8 to 128 letters, digits, "-" or "_", one per attempt (a UUID fits) (the one sent has 6 characters)',
        },
      ]);
      expect(world.sandbox.control.counters.requests.tokenize).toBe(tokenizations);
      expect((await site(0).getSession(sessionId).expect(200)).body.status).toBe('requires_payment_method');
    });

    it('answers 409 with Retry-After while the first request with the key is still running', async () => {
      const { sessionId } = await newSession();
      const key = randomUUID();
      world.sandbox.control.setRouteDelay('tokenize', 600);
      try {
        // The first request holds the key once its running marker is in Redis (tokenization is held 600 ms).
        const known = new Set(await world.apps[0].redisKeys());
        const first = site(0).submit(sessionId, cardBody(), key);
        const firstDone = first.then((res) => res);
        await waitUntil(
          async () => (await world.apps[0].redisKeys()).some((k) => k.includes('idempotency') && !known.has(k)),
          3000,
          'the running marker',
        );
        const second = await site(1).submit(sessionId, cardBody(), key);
        expect(second.status).toBe(409);
        expect(second.body.code).toBe('idempotency_in_progress');
        expect(second.headers['retry-after']).toBe('1');
        expect((await firstDone).status).toBe(200);
      } finally {
        world.sandbox.control.setRouteDelay('tokenize', 0);
      }
    });
  });

  it('keeps card numbers and CVCs out of every log line and every Redis key and value', async () => {
    const keys = await world.apps[0].redisKeys();
    expect(keys.length).toBeGreaterThan(0);
    const redis = new (await import('ioredis')).default(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
    const stored = await Promise.all(keys.map(async (key) => `${key} ${(await redis.get(key).catch(() => '')) ?? ''}`));
    redis.disconnect();
    const logs = world.apps.map((app) => app.logs.text).join('\n');
    for (const number of Object.values(CARDS)) {
      expect(stored.join('\n')).not.toContain(number);
      expect(logs).not.toContain(number);
    }
    // The CVC as a whole value: a random id that happens to end in its digits (guest-…722737) is no leak.
    expect(stored.join('\n')).not.toMatch(new RegExp(`"cvc"|"${CVC}"`));
    expect(logs).not.toMatch(new RegExp(`"cvc":"${CVC}"`));
  });
});
