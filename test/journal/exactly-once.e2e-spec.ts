import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { CARDS, cardBody, checkoutClient, freshReservation, sessionsStoredFor } from '../utils/checkout-client';
import { waitUntil } from '../utils/redis-server';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';

/**
 * docs/product-spec.md §6 end to end: every fault that once attached a second card, added an extra twice or told
 * the guest "failed" for a write that landed, replayed against two replicas on real Redis.
 */
describe('exactly once: card attaches and extras under faults', () => {
  let world: SandboxedApps;

  beforeAll(async () => {
    world = await startSandboxedApps(2, {
      env: {
        // A short lease, renewed while the work runs: an attach slower than it proves the renewal.
        RESERVATION_LEASE_MS: '1000',
        RESERVATION_WRITE_SPACING_MS: '200',
        CHECKOUT_CARD_ATTEMPTS: '100/h',
        CHECKOUT_IP_RATE_LIMIT: '10000/m',
        CHECKOUT_EXTRAS: JSON.stringify([
          { code: 'late-checkout', normalType: 'AFE', secondIdentifier: 'LATE_CHECKOUT', title: 'Late checkout', amount: 40 },
        ]),
      },
      sandbox: { paymentVisibilityDelayMs: 0 },
    });
  });

  afterEach(() => world.sandbox.control.clearFaults());
  afterAll(() => world.close());

  const site = (index = 0) => checkoutClient(world.apps[index].url);
  const attachRequests = () => world.sandbox.control.counters.requests.paymentMethods ?? 0;
  const methodsOn = (guestId: string, reservationId: string) =>
    world.sandbox.control.getPaymentMethods(guestId).filter((method) => method.reservationId === reservationId);

  async function newSession(balance = 300) {
    const reservation = freshReservation(world, balance);
    const created = await site(0).createSession(reservation.reservationId, reservation.guestEmail).expect(201);
    return { ...reservation, sessionId: created.body.id as string };
  }

  it('1. a second submission on another replica while a slow attach runs past the lease attaches nothing', async () => {
    const { sessionId, reservationId, guestId } = await newSession();
    world.sandbox.control.setRouteDelay('paymentMethods', 2_500);
    const before = attachRequests();
    const first = site(0)
      .submit(sessionId, cardBody(CARDS.noThreeDs), randomUUID())
      .then((res) => res);
    await waitUntil(() => Promise.resolve(attachRequests() > before), 10_000, 'the first attach to reach the platform');
    // The card may be on the platform already: the other replica never says "add a card" meanwhile.
    const during = await site(1).getSession(sessionId).expect(200);
    expect(during.body.status).toBe('processing');
    // Past the 1 s lease: only its renewal keeps the second submission out.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const second = await site(1).submit(sessionId, cardBody('5555555555554444'), randomUUID());
    // "Wait and press again", never a refusal's code: the site's client retries it with the same key.
    expect(second.status).toBe(409);
    expect(second.body.code).toBe('step_in_progress');
    expect(Number(second.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    const firstAnswer = await first;
    expect(firstAnswer.status).toBe(200);
    expect(firstAnswer.body).toMatchObject({ status: 'succeeded', paymentMethod: { last4: '4242' } });
    expect(attachRequests()).toBe(before + 1);
    expect(methodsOn(guestId, reservationId)).toHaveLength(1);
    await site(1)
      .getSession(sessionId)
      .expect(200)
      .expect((res) => expect(res.body.status).toBe('succeeded'));
  });

  it('2. an attach whose answer is lost and cannot be checked keeps its key: the retry answers what landed, never a second card', async () => {
    const { sessionId, reservationId, guestId } = await newSession();
    world.sandbox.control.setRouteDelay('paymentMethods', 300);
    world.sandbox.control.dropConnection('paymentMethods', { afterHandling: true, times: 1 });
    const key = randomUUID();
    const before = attachRequests();
    const answer = site(0)
      .submit(sessionId, cardBody(CARDS.noThreeDs), key)
      .then((res) => res);
    // Once the attach is on the wire (the snapshot read before it went through), the platform's reads fail.
    await waitUntil(() => Promise.resolve(attachRequests() > before), 10_000, 'the attach to reach the platform');
    world.sandbox.control.forceStatus('listPaymentMethods', 503, { times: 1_000 });
    const unclear = await answer;
    expect(unclear.status).toBe(503);
    expect(unclear.body.code).toBe('outcome_pending');
    expect(unclear.headers['retry-after']).toBeDefined();
    const meanwhile = await site(1).getSession(sessionId).expect(200);
    expect(meanwhile.body.status).toBe('processing');
    // Another key while the outcome is unknown: no second write.
    const other = await site(1).submit(sessionId, cardBody('5555555555554444'), randomUUID());
    expect([409, 503]).toContain(other.status);
    expect(methodsOn(guestId, reservationId)).toHaveLength(1);

    world.sandbox.control.clearFaults();
    const retried = await site(1).submit(sessionId, cardBody(CARDS.noThreeDs), key).expect(200);
    expect(retried.body).toMatchObject({ status: 'succeeded', paymentMethod: { last4: '4242' } });
    expect(methodsOn(guestId, reservationId)).toHaveLength(1);
    await site(0)
      .getSession(sessionId)
      .expect(200)
      .expect((res) => expect(res.body.status).toBe('succeeded'));
  });

  it('2. a 3-D Secure return whose attach answer is lost sends the browser on with processing, and the sweep settles it', async () => {
    const { sessionId, reservationId, guestId } = await newSession();
    const submitted = await site(0).submit(sessionId, cardBody(CARDS.threeDs)).expect(200);
    const pressed = await fetch(`${submitted.body.nextAction.redirectUrl as string}/authenticate`, { method: 'POST', redirect: 'manual' });
    const successUrl = new URL(pressed.headers.get('location')!);
    world.sandbox.control.setRouteDelay('paymentMethods', 300);
    world.sandbox.control.dropConnection('paymentMethods', { afterHandling: true, times: 1 });
    const before = attachRequests();
    const landing = fetch(successUrl, { redirect: 'manual' });
    await waitUntil(() => Promise.resolve(attachRequests() > before), 10_000, 'the attach to reach the platform');
    world.sandbox.control.forceStatus('listPaymentMethods', 503, { times: 1_000 });
    const landed = await landing;
    expect(landed.status).toBe(303);
    expect(new URL(landed.headers.get('location')!).searchParams.get('status')).toBe('processing');
    await site(1)
      .getSession(sessionId)
      .expect(200)
      .expect((res) => expect(res.body.status).toBe('processing'));
    world.sandbox.control.clearFaults();
    // The sweep of either replica looks at it again once it is due (5 s after the last check).
    await waitUntil(
      async () => (await site(0).getSession(sessionId)).body.status !== 'processing',
      20_000,
      'the sweep to settle the attach',
    );
    const session = await site(0).getSession(sessionId).expect(200);
    expect(session.body).toMatchObject({ status: 'succeeded', paymentMethod: { last4: '3220' } });
    expect(methodsOn(guestId, reservationId)).toHaveLength(1);
  });

  it('4. a second session on a reservation that has a card answers already_paid, on opening and on submitting', async () => {
    const reservation = freshReservation(world, 300);
    const a = await site(0).createSession(reservation.reservationId, reservation.guestEmail).expect(201);
    const b = await site(1).createSession(reservation.reservationId, reservation.guestEmail).expect(201);
    await site(0).submit(a.body.id, cardBody(CARDS.noThreeDs)).expect(200);
    const before = attachRequests();
    const secondCard = await site(1).submit(b.body.id, cardBody('5555555555554444'));
    expect(secondCard.status).toBe(409);
    expect(secondCard.body.code).toBe('already_paid');
    const third = await site(1).createSession(reservation.reservationId, reservation.guestEmail);
    expect(third.status).toBe(409);
    expect(third.body.code).toBe('already_paid');
    expect(await sessionsStoredFor(world, reservation.reservationId)).toBe(2);
    expect(attachRequests()).toBe(before);
    expect(methodsOn(reservation.guestId, reservation.reservationId)).toHaveLength(1);
    await site(0)
      .getSession(b.body.id)
      .expect(200)
      .expect((res) => expect(res.body.status).not.toBe('succeeded'));
  });

  it('5. a session never claims a card it did not attach: another session with the same card is refused, not "succeeded"', async () => {
    const reservation = freshReservation(world, 300);
    const a = await site(0).createSession(reservation.reservationId, reservation.guestEmail).expect(201);
    const b = await site(1).createSession(reservation.reservationId, reservation.guestEmail).expect(201);
    await site(0).submit(a.body.id, cardBody(CARDS.noThreeDs)).expect(200);
    // The same card through a lost answer: before, the landed-check matched session A's method.
    world.sandbox.control.dropConnection('paymentMethods', { afterHandling: true, times: 1 });
    const res = await site(1).submit(b.body.id, cardBody(CARDS.noThreeDs));
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('already_paid');
    const session = await site(1).getSession(b.body.id).expect(200);
    expect(session.body.status).not.toBe('succeeded');
    expect(session.body.paymentMethod).toBeUndefined();
    expect(methodsOn(reservation.guestId, reservation.reservationId)).toHaveLength(1);
  });

  it('6. extras whose write is unclear keep their key: the retry adds nothing twice', async () => {
    const { sessionId, reservationId } = await newSession();
    await site(0).submit(sessionId, cardBody(CARDS.noThreeDs)).expect(200);
    const itemsLike = () =>
      (
        (world.sandbox.control.getReservation(reservationId) as { money: { invoiceItems: { title: string }[] } }).money.invoiceItems ?? []
      ).filter((item) => item.title === 'Late checkout');
    world.sandbox.control.setRouteDelay('invoiceItems', 300);
    world.sandbox.control.dropConnection('invoiceItems', { afterHandling: true, times: 1 });
    const key = randomUUID();
    const extras = (replica: number) =>
      request(world.apps[replica].url)
        .post(`/checkout/sessions/${sessionId}/extras`)
        .set('Idempotency-Key', key)
        .send({ items: [{ code: 'late-checkout' }] });
    const writes = () => world.sandbox.control.counters.requests.invoiceItems ?? 0;
    const before = writes();
    const answer = extras(0).then((res) => res);
    await waitUntil(() => Promise.resolve(writes() > before), 10_000, 'the invoice item to reach the platform');
    world.sandbox.control.forceStatus('reservation', 503, { times: 1_000 });
    const unclear = await answer;
    expect(unclear.status).toBe(503);
    expect(unclear.body.code).toBe('outcome_pending');
    expect(itemsLike()).toHaveLength(1);
    world.sandbox.control.clearFaults();
    const retried = await extras(1).expect(201);
    expect(retried.body.items).toEqual([expect.objectContaining({ code: 'late-checkout', amount: 40 })]);
    expect(itemsLike()).toHaveLength(1);
    await extras(0).expect(201);
    expect(itemsLike()).toHaveLength(1);
  });

  it('6. the same extras request pressed on two replicas at once adds each line once', async () => {
    const { sessionId, reservationId } = await newSession();
    await site(0).submit(sessionId, cardBody(CARDS.noThreeDs)).expect(200);
    const key = randomUUID();
    const extras = (replica: number) =>
      request(world.apps[replica].url)
        .post(`/checkout/sessions/${sessionId}/extras`)
        .set('Idempotency-Key', key)
        .send({ items: [{ code: 'late-checkout' }] });
    const answers = await Promise.all([extras(0), extras(1)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409]);
    const items = (
      (world.sandbox.control.getReservation(reservationId) as { money: { invoiceItems: { title: string }[] } }).money.invoiceItems ?? []
    ).filter((item) => item.title === 'Late checkout');
    expect(items).toHaveLength(1);
    // The one that was turned away gets the first's answer once it retries.
    await extras(1).expect(201);
  });

  it("7. the failure return's state does not open the success path", async () => {
    const { sessionId, reservationId, guestId } = await newSession();
    const submitted = await site(0).submit(sessionId, cardBody(CARDS.threeDs)).expect(200);
    const authUrl = submitted.body.nextAction.redirectUrl as string;
    const failed = await fetch(`${authUrl}/fail`, { method: 'POST', redirect: 'manual' });
    const failureUrl = new URL(failed.headers.get('location')!);
    expect(failureUrl.pathname).toBe(`/checkout/3ds/${sessionId}/failure`);
    const before = attachRequests();
    const forged = new URL(`${world.apps[1].url}/checkout/3ds/${sessionId}/success${failureUrl.search}`);
    const answer = await fetch(forged, { redirect: 'manual' });
    expect(answer.status).toBe(303);
    // The session still waits for its own return: never "failed" for it, the page reads the session.
    expect(new URL(answer.headers.get('location')!).searchParams.get('status')).toBe('processing');
    await site(0)
      .getSession(sessionId)
      .expect(200)
      .expect((res) => expect(res.body.status).toBe('requires_action'));
    expect(attachRequests()).toBe(before);
    expect(methodsOn(guestId, reservationId)).toHaveLength(0);
    // The state still opens its own path.
    const own = await fetch(new URL(`${world.apps[1].url}${failureUrl.pathname}${failureUrl.search}`), { redirect: 'manual' });
    expect(new URL(own.headers.get('location')!).searchParams.get('status')).toBe('failed');
    await site(0)
      .getSession(sessionId)
      .expect(200)
      .expect((res) => expect(res.body).toMatchObject({ status: 'failed', lastError: { code: 'authentication_failed' } }));
  });
});
