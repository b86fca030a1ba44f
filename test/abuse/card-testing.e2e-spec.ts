import { randomUUID } from 'node:crypto';
import { CARDS, cardBody, checkoutClient, freshReservation, sessionsStoredFor } from '../utils/checkout-client';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';

/** docs/product-spec.md §7: the card-testing guard has no side door, whatever the submission's shape or session. */
describe('card-testing guard: token submissions and sessions per reservation count', () => {
  let world: SandboxedApps;

  beforeAll(async () => {
    world = await startSandboxedApps(2, {
      env: { CHECKOUT_CARD_ATTEMPTS: '2/h', CHECKOUT_SESSIONS_PER_RESERVATION: '2/h', CHECKOUT_IP_RATE_LIMIT: '1000/m' },
    });
  });

  afterAll(() => world.close());

  const site = (index = 0) => checkoutClient(world.apps[index].url);
  const attaches = () => world.sandbox.control.counters.requests.paymentMethods ?? 0;

  it('counts token submissions as card attempts, on every replica', async () => {
    const reservation = freshReservation(world);
    const sessionId = (await site(0).createSession(reservation.reservationId, reservation.guestEmail).expect(201)).body.id as string;
    // Tokens the platform does not know: each one is refused at the attach, and each one counts.
    await site(0)
      .submit(sessionId, { token: `tok_${randomUUID().slice(0, 8)}` })
      .expect(402);
    await site(1)
      .submit(sessionId, { token: `tok_${randomUUID().slice(0, 8)}` })
      .expect(402);
    const before = attaches();
    const third = await site(0).submit(sessionId, { token: `tok_${randomUUID().slice(0, 8)}` });
    expect(third.status).toBe(429);
    expect(third.body.code).toBe('rate_limited');
    expect(Number(third.headers['retry-after'])).toBeGreaterThan(0);
    expect(attaches()).toBe(before);
  });

  it('counts a press in the step that takes the reservation, but not one refused for the card already on file, nor a replay of its key', async () => {
    const reservation = freshReservation(world);
    const sessionId = (await site(0).createSession(reservation.reservationId, reservation.guestEmail).expect(201)).body.id as string;
    const key = randomUUID();
    await site(0).submit(sessionId, cardBody(CARDS.noThreeDs), key).expect(200);
    const attempts = async () => {
      const contents = await world.apps[0].redisContents();
      const window = [...contents.entries()].find(([name]) =>
        name.endsWith(`{reservation:${reservation.reservationId}}:limit:card-attempts:w`),
      );
      // A sorted set's members and scores, one a line.
      return window ? window[1].split('\n').length / 2 : 0;
    };
    expect(await attempts()).toBe(1);
    // Paid: each new press is refused, the same key is answered from its record, and none spends an attempt.
    for (const index of [0, 1, 0]) {
      const refused = await site(index).submit(sessionId, cardBody(CARDS.noThreeDs));
      expect(refused.status).toBe(409);
    }
    await site(1).submit(sessionId, cardBody(CARDS.noThreeDs), key).expect(200);
    expect(await attempts()).toBe(1);
  });

  it('bounds the sessions opened on one reservation, so new sessions are no way around it', async () => {
    const reservation = freshReservation(world);
    await site(0).createSession(reservation.reservationId, reservation.guestEmail).expect(201);
    await site(1).createSession(reservation.reservationId, reservation.guestEmail).expect(201);
    const third = await site(0).createSession(reservation.reservationId, reservation.guestEmail);
    expect(third.status).toBe(429);
    expect(third.body.code).toBe('rate_limited');
    expect(await sessionsStoredFor(world, reservation.reservationId)).toBe(2);
    // Another reservation is not affected.
    const other = freshReservation(world);
    await site(0).createSession(other.reservationId, other.guestEmail).expect(201);
  });
});
