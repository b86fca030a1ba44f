import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { freshReservation } from '../utils/checkout-client';
import { keysAdded } from '../utils/keys-added';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';

const madeUpReservationId = () => `res-${randomBytes(9).toString('base64url')}`;

/**
 * docs/product-spec.md §7: ids cannot be probed. An existing id asked with a wrong email and an id
 * nobody made answer alike in status and body, and cost the platform the same calls (the time is
 * the bench's: scenario 9 prints both medians).
 */
describe('an existing id with a wrong email answers as a made-up id', () => {
  let world: SandboxedApps;
  let url: string;
  let address = 0;

  beforeAll(async () => {
    // Budget limits no test here meets: the calls a lookup costs are under test, not the budget's pace.
    world = await startSandboxedApps(1, {
      sandbox: { rateLimits: { perSecond: 1000, perMinute: 60_000, perHour: 1_000_000 } },
      env: { TRUST_PROXY: '1', UPSTREAM_RATE_LIMITS: '1000/s,60000/m,1000000/h' },
    });
    url = world.apps[0].url;
    // The token minted and the provider read once, before anything is counted.
    const warm = freshReservation(world);
    expect((await open(warm.reservationId, warm.guestEmail)).status).toBe(201);
  });

  afterAll(() => world.close());

  /** Each open from a network of its own: the networks' miss allowance is not what this shows. */
  async function open(reservationId: string, email: string) {
    address += 1;
    return request(url).post('/checkout/sessions').set('X-Forwarded-For', `198.18.40.${address}`).send({ reservationId, email });
  }

  /** The answer without its request id, and the platform calls it cost. */
  async function answered(reservationId: string, email: string) {
    const from = world.sandbox.control.requestLog.length;
    const answer = await open(reservationId, email);
    const calls = world.sandbox.control.requestLog.slice(from).map((entry) => entry.route);
    return { status: answer.status, body: { ...answer.body, requestId: undefined }, calls: calls.length, routes: calls };
  }

  const sameAnswer = (wrongEmail: Awaited<ReturnType<typeof answered>>, madeUp: Awaited<ReturnType<typeof answered>>) => {
    expect(wrongEmail.body).toEqual(madeUp.body);
    expect(wrongEmail.status).toBe(404);
    expect(madeUp.status).toBe(404);
    expect(wrongEmail.calls).toBe(madeUp.calls);
  };

  it.each(['single', 'list'] as const)(
    'for a reservation the service does not know yet (the guest’s email in the %s read)',
    async (guestEmailIn) => {
      world.sandbox.control.setReadings({ guestEmailIn });
      const { reservationId } = freshReservation(world);
      const wrongEmail = await answered(reservationId, 'someone-else@example.com');
      const madeUp = await answered(madeUpReservationId(), 'someone-else@example.com');
      sameAnswer(wrongEmail, madeUp);
      // The money is read only for the guest's own email.
      expect(wrongEmail.routes.filter((route) => route === 'folioOverview' || route === 'payments')).toEqual([]);
    },
  );

  it('for a reservation its guest opened before (its guest’s email recorded)', async () => {
    world.sandbox.control.setReadings({ guestEmailIn: 'single' });
    const { reservationId, guestEmail } = freshReservation(world);
    expect((await open(reservationId, guestEmail)).status).toBe(201);
    const wrongEmail = await answered(reservationId, 'someone-else@example.com');
    const madeUp = await answered(madeUpReservationId(), 'someone-else@example.com');
    sameAnswer(wrongEmail, madeUp);
    // The guest's own email answered by the record: the reservation, then its money, no guest read.
    const again = await answered(reservationId, guestEmail);
    expect(again.status).toBe(201);
    expect(again.routes.filter((route) => route === 'guest' || route === 'guestsList')).toEqual([]);
  });

  it('for the same guess sent again: neither reads the platform twice', async () => {
    const { reservationId } = freshReservation(world);
    const guess = madeUpReservationId();
    await answered(reservationId, 'again@example.com');
    await answered(guess, 'again@example.com');
    sameAnswer(await answered(reservationId, 'again@example.com'), await answered(guess, 'again@example.com'));
  });

  it.each([
    ['a code of the wrong form', { confirmationCode: 'not a code!' }],
    [
      'a code beside a quote',
      { quoteId: 'q_5Jx2Yb0yq8VbS4m1tWc3dA', guest: { firstName: 'A', lastName: 'B', email: 'a@example.com' }, confirmationCode: 'ABC123' },
    ],
  ])('refuses %s with 400 on confirmationCode: nothing read upstream, nothing stored', async (_, extra) => {
    const { reservationId, guestEmail } = freshReservation(world);
    const from = world.sandbox.control.requestLog.length;
    const keysBefore = await world.apps[0].redisKeys();
    const body = 'quoteId' in extra ? extra : { reservationId, email: guestEmail, ...extra };
    const answer = await request(url).post('/checkout/sessions').set('X-Forwarded-For', '198.18.41.1').send(body);
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('validation_failed');
    expect((answer.body.errors as { field: string }[]).map((error) => error.field)).toContain('confirmationCode');
    expect(world.sandbox.control.requestLog.length).toBe(from);
    // The address's request counter is what any request costs.
    expect(keysAdded(keysBefore, await world.apps[0].redisKeys()).filter((key) => !key.includes('{limit:client-ip:'))).toEqual([]);
  });
});
