import { CARDS, cardBody, checkoutClient, freshReservation } from '../utils/checkout-client';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';

/**
 * An attach the upstream answers with a refusal that is not about the card: the guest is told what
 * it is (busy, or the platform refusing the service), never that the card was declined.
 */
describe('an attach refused for reasons other than the card', () => {
  let world: SandboxedApps;

  beforeAll(async () => {
    // A short deadline, so a 429 whose Retry-After outlasts it is answered at once.
    world = await startSandboxedApps(1, { env: { UPSTREAM_DEADLINE_MS: '1000' }, sandbox: { paymentVisibilityDelayMs: 0 } });
  });

  afterEach(() => world.sandbox.control.clearFaults());
  afterAll(() => world.close());

  const site = () => checkoutClient(world.apps[0].url);
  const attaches = () => world.sandbox.control.counters.requests.paymentMethods ?? 0;

  async function newSession() {
    const reservation = freshReservation(world);
    const created = await site().createSession(reservation.reservationId, reservation.guestEmail).expect(201);
    return { ...reservation, sessionId: created.body.id as string };
  }

  it('a 403 that a fresh token does not cure answers upstream_forbidden, records it, and a new card succeeds once it is lifted', async () => {
    const { sessionId, guestId } = await newSession();
    const minted = world.sandbox.control.counters.tokensMinted;
    world.sandbox.control.forceStatus('paymentMethods', 403, {
      body: { message: "You don't have permission to access, please contact Guesty support" },
    });
    const before = attaches();
    const refused = await site().submit(sessionId, cardBody(CARDS.noThreeDs)).expect(502);
    expect(refused.body).toMatchObject({ code: 'upstream_forbidden', requestId: expect.any(String) });
    // One re-mint for the maybe-stale token, then a real refusal: two attaches, one new token, no loop.
    expect(attaches() - before).toBe(2);
    expect(world.sandbox.control.counters.tokensMinted - minted).toBe(1);
    expect(world.sandbox.control.getPaymentMethods(guestId)).toHaveLength(0);
    await site()
      .getSession(sessionId)
      .expect(200)
      .expect((res) => expect(res.body).toMatchObject({ status: 'failed', lastError: { code: 'upstream_forbidden' } }));

    world.sandbox.control.clearFaults();
    const paid = await site().submit(sessionId, cardBody(CARDS.noThreeDs)).expect(200);
    expect(paid.body.status).toBe('succeeded');
    expect(world.sandbox.control.getPaymentMethods(guestId)).toHaveLength(1);
  });

  it('a 429 whose Retry-After outlasts the deadline answers rate_limited with Retry-After, not card_declined, and attaches nothing', async () => {
    const { sessionId, guestId } = await newSession();
    world.sandbox.control.forceStatus('paymentMethods', 429, {
      times: 1,
      headers: { 'Retry-After': '2' },
      body: { message: 'Too Many Requests' },
    });
    const before = attaches();
    const refused = await site().submit(sessionId, cardBody(CARDS.noThreeDs)).expect(503);
    expect(refused.body).toMatchObject({ code: 'rate_limited', requestId: expect.any(String) });
    expect(refused.headers['retry-after']).toBe('2');
    expect(attaches() - before).toBe(1);
    expect(world.sandbox.control.getPaymentMethods(guestId)).toHaveLength(0);
    await site()
      .getSession(sessionId)
      .expect(200)
      .expect((res) => expect(res.body).toMatchObject({ status: 'failed', lastError: { code: 'rate_limited' } }));
  });
});
