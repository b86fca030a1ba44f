import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { bookingClient, newGuest, stay } from '../booking/booking-client';
import { CARDS, cardBody, checkoutClient, freshReservation } from '../utils/checkout-client';
import { waitUntil } from '../utils/redis-server';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';

/**
 * The platform slower than our timeout (docs/write-journal.md, "Unknown means unknown") carries a
 * write out after the service gave up. Scaled down: a 1 s timeout and 3.25 s of re-reads; the
 * platform acts only when the test says (`actNow`), so no load on the machine moves it, well inside
 * the 30 s settle horizon.
 */
const TIMEOUT_MS = 1_000;
/** Longer than any test here: the platform acts when the test calls actNow. */
const ACTS_AFTER_MS = 120_000;
const ENV = {
  UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS),
  UPSTREAM_DEADLINE_MS: '1000',
  RESERVATION_LEASE_MS: '1000',
  WRITE_SETTLE_SECONDS: '30',
  RESERVATION_WRITE_SPACING_MS: '0',
  CHECKOUT_RETURN_URL: 'http://localhost:8080/checkout/done',
  CHECKOUT_EXTRAS: JSON.stringify([{ code: 'late-checkout', normalType: 'CF', title: 'Late checkout', amount: 40 }]),
};
const SAFE_WORDS = /safe to retry|nothing was changed|not added/i;

describe('a platform slower than our timeout: unknown means unknown', () => {
  let world: SandboxedApps;
  const site = (replica = 0) => checkoutClient(world.apps[replica].url);
  const sent = (route: 'paymentMethods' | 'invoiceItems' | 'reservationFromQuote') => world.sandbox.control.counters.requests[route] ?? 0;

  beforeAll(async () => {
    world = await startSandboxedApps(2, { env: ENV, sandbox: { paymentVisibilityDelayMs: 0 } });
  });
  afterAll(() => world.close());
  afterEach(() => world.sandbox.control.clearFaults());

  async function openSession(balance = 500) {
    const reservation = freshReservation(world, balance);
    const created = await site(0).createSession(reservation.reservationId, reservation.guestEmail).expect(201);
    return { sessionId: created.body.id as string, ...reservation };
  }

  function expectPending(answer: request.Response): void {
    expect(answer.status).toBe(503);
    expect(answer.body.code).toBe('outcome_pending');
    expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(answer.body.detail).not.toMatch(SAFE_WORDS);
  }

  it('a card attach the platform carries out after our timeout: 503 outcome_pending, the session processing, the retry finds the one card', async () => {
    const { sessionId, guestId } = await openSession();
    const key = randomUUID();
    world.sandbox.control.slowWrite('paymentMethods', { actAfterMs: ACTS_AFTER_MS, answerAfterMs: ACTS_AFTER_MS + 500, times: 1 });
    const acted = world.sandbox.control.whenActed('paymentMethods');
    const first = await site(0).submit(sessionId, cardBody(), key);
    expectPending(first);
    expect((await site(1).getSession(sessionId).expect(200)).body.status).toBe('processing');
    // Before the platform acted: the same key on another replica sends nothing and says the same.
    expectPending(await site(1).submit(sessionId, cardBody(), key));
    // Another card on the reservation while it is unknown: nothing is sent either.
    expectPending(await site(1).submit(sessionId, cardBody('5555555555554444')));
    expect(sent('paymentMethods')).toBe(1);
    expect(world.sandbox.control.actNow('paymentMethods')).toBe(1);
    await acted;
    const retried = await site(1).submit(sessionId, cardBody(), key).expect(200);
    expect(retried.body).toMatchObject({ status: 'succeeded', paymentMethod: { last4: '4242' } });
    expect(world.sandbox.control.getPaymentMethods(guestId)).toHaveLength(1);
    expect(sent('paymentMethods')).toBe(1);
  });

  it('an extras line the platform adds after our timeout is added once: the retry answers it, the balance is not doubled', async () => {
    const { sessionId, reservationId } = await openSession(300);
    await site(0).submit(sessionId, cardBody()).expect(200);
    const key = randomUUID();
    const before = sent('invoiceItems');
    world.sandbox.control.slowWrite('invoiceItems', { actAfterMs: ACTS_AFTER_MS, dropAnswer: true, times: 1 });
    const acted = world.sandbox.control.whenActed('invoiceItems');
    const extras = () =>
      request(world.apps[0].url)
        .post(`/checkout/sessions/${sessionId}/extras`)
        .set('Idempotency-Key', key)
        .send({ items: [{ code: 'late-checkout' }] });
    expectPending(await extras());
    world.sandbox.control.actNow('invoiceItems');
    await acted;
    const retried = await extras().expect(201);
    expect(retried.body.items.map((item: { code: string }) => item.code)).toEqual(['late-checkout']);
    const folio = world.sandbox.control.getReservation(reservationId) as { money: { invoiceItems: { title: string }[] } };
    const lines = folio.money.invoiceItems.filter((item) => item.title === 'Late checkout');
    expect(lines).toHaveLength(1);
    expect(sent('invoiceItems') - before).toBe(1);
  });

  it('a 3-D Secure return whose attach is still in flight sends the browser on with processing, never failed; the card lands once', async () => {
    const { sessionId, guestId } = await openSession(410);
    const submitted = await site(0).submit(sessionId, cardBody(CARDS.threeDs)).expect(200);
    const authUrl = submitted.body.nextAction.redirectUrl as string;
    const pressed = await fetch(`${authUrl}/authenticate`, { method: 'POST', redirect: 'manual' });
    const successUrl = new URL(pressed.headers.get('location')!);
    world.sandbox.control.slowWrite('paymentMethods', { actAfterMs: ACTS_AFTER_MS, answerAfterMs: ACTS_AFTER_MS + 500, times: 1 });
    const acted = world.sandbox.control.whenActed('paymentMethods');
    const returned = await fetch(successUrl, { redirect: 'manual' });
    expect(new URL(returned.headers.get('location')!).searchParams.get('status')).toBe('processing');
    expect((await site(1).getSession(sessionId).expect(200)).body.status).toBe('processing');
    world.sandbox.control.actNow('paymentMethods');
    await acted;
    // The journal's sweep (or the next request) finds the card on the reservation: the session follows.
    await waitUntil(
      async () => (await site(1).getSession(sessionId)).body.status === 'succeeded',
      20_000,
      'the session to show the card that landed',
    );
    // The guest's next card is refused: one card per reservation.
    expect((await site(0).submit(sessionId, cardBody())).status).toBe(409);
    expect(world.sandbox.control.getPaymentMethods(guestId)).toHaveLength(1);
  });

  it('a booking whose reservation the platform creates after our timeout: the retry finds its own reservation, never quote_used', async () => {
    const booking = bookingClient(world.apps[0].url);
    const quote = await booking.quote({ listingId: 'lst-city', ...stay(60, 2), guestsCount: 2 }).expect(201);
    const key = randomUUID();
    const body = { quoteId: quote.body.id as string, guest: newGuest() };
    world.sandbox.control.slowWrite('reservationFromQuote', { actAfterMs: ACTS_AFTER_MS, answerAfterMs: ACTS_AFTER_MS + 500, times: 1 });
    const acted = world.sandbox.control.whenActed('reservationFromQuote');
    expectPending(await booking.book(body, key));
    // Another guest on the same quote while it is unknown: nothing is sent.
    expect((await bookingClient(world.apps[1].url).book({ ...body, guest: newGuest() })).status).toBe(503);
    world.sandbox.control.actNow('reservationFromQuote');
    await acted;
    const retried = await bookingClient(world.apps[1].url).book(body, key).expect(201);
    const upstreamQuote = world.sandbox.control.getQuote(quote.body.id as string) as { reservationId?: string } | undefined;
    expect(retried.body.booking.reservationId).toBeDefined();
    if (upstreamQuote?.reservationId) expect(retried.body.booking.reservationId).toBe(upstreamQuote.reservationId);
    expect(sent('reservationFromQuote')).toBe(1);
    // The other guest is now told the quote is used; the first guest's retry answers its own session again.
    expect((await bookingClient(world.apps[1].url).book({ ...body, guest: newGuest() })).body.code).toBe('quote_used');
    expect((await booking.book(body, key).expect(201)).body.id).toBe(retried.body.id);
  });
});

describe('3-D Secure returns that arrive twice or on the wrong path', () => {
  let world: SandboxedApps;
  const site = (replica = 0) => checkoutClient(world.apps[replica].url);

  beforeAll(async () => {
    world = await startSandboxedApps(2, {
      env: { CHECKOUT_RETURN_URL: 'http://localhost:8080/checkout/done' },
      sandbox: { paymentVisibilityDelayMs: 0 },
    });
  });
  afterAll(() => world.close());
  afterEach(() => world.sandbox.control.clearFaults());

  async function authenticated() {
    const reservation = freshReservation(world, 410);
    const created = await site(0).createSession(reservation.reservationId, reservation.guestEmail).expect(201);
    const sessionId = created.body.id as string;
    const submitted = await site(0).submit(sessionId, cardBody(CARDS.threeDs)).expect(200);
    const pressed = await fetch(`${submitted.body.nextAction.redirectUrl as string}/authenticate`, { method: 'POST', redirect: 'manual' });
    return { sessionId, successUrl: new URL(pressed.headers.get('location')!), guestId: reservation.guestId };
  }

  const statusOf = async (url: URL, replica: string) => {
    const onReplica = new URL(url);
    onReplica.host = new URL(replica).host;
    const answer = await fetch(onReplica, { redirect: 'manual' });
    return new URL(answer.headers.get('location')!).searchParams.get('status');
  };

  it('a double submit during the attach: the second return says processing or succeeded, never failed', async () => {
    const { sessionId, successUrl, guestId } = await authenticated();
    world.sandbox.control.setRouteDelay('paymentMethods', 400);
    const arrived = world.sandbox.control.whenActed('paymentMethods');
    const first = statusOf(successUrl, world.apps[0].url);
    // The second press leaves while the first return's attach is at the platform.
    await waitUntil(
      () => Promise.resolve((world.sandbox.control.counters.requests.paymentMethods ?? 0) > 0),
      5_000,
      'the first return to send its attach',
    );
    const second = await statusOf(successUrl, world.apps[1].url);
    expect(['processing', 'succeeded']).toContain(second);
    expect(await first).toBe('succeeded');
    await arrived;
    expect((await site(1).getSession(sessionId).expect(200)).body.status).toBe('succeeded');
    expect(world.sandbox.control.getPaymentMethods(guestId)).toHaveLength(1);
  });

  it('while a 3-D Secure return is attaching the card, the session reads processing on every replica, never requires_action', async () => {
    const { sessionId, successUrl, guestId } = await authenticated();
    // The platform holds the attach: were the return's replica killed now, only the journal would know.
    world.sandbox.control.slowWrite('paymentMethods', { actAfterMs: 120_000, answerAfterMs: 120_500, times: 1 });
    const acted = world.sandbox.control.whenActed('paymentMethods');
    const attachesBefore = world.sandbox.control.counters.requests.paymentMethods ?? 0;
    const returned = statusOf(successUrl, world.apps[0].url);
    await waitUntil(
      () => Promise.resolve((world.sandbox.control.counters.requests.paymentMethods ?? 0) > attachesBefore),
      10_000,
      'the return to send its attach',
    );
    const seen = (await site(1).getSession(sessionId).expect(200)).body;
    expect(seen.status).toBe('processing');
    expect(seen.nextAction).toBeUndefined();
    world.sandbox.control.actNow('paymentMethods');
    await acted;
    expect(['processing', 'succeeded']).toContain(await returned);
    await waitUntil(
      async () => (await site(1).getSession(sessionId)).body.status === 'succeeded',
      30_000,
      'the session to show the card that landed',
    );
    expect(world.sandbox.control.getPaymentMethods(guestId)).toHaveLength(1);
  });

  it("a state presented on another session's return path is not consumed and changes nothing; the rightful return then works", async () => {
    const mine = await authenticated();
    const other = await authenticated();
    const misrouted = new URL(mine.successUrl);
    misrouted.pathname = misrouted.pathname.replace(mine.sessionId, other.sessionId);
    expect(await statusOf(misrouted, world.apps[0].url)).toBe('processing');
    expect((await site(0).getSession(other.sessionId).expect(200)).body.status).toBe('requires_action');
    expect((await site(0).getSession(mine.sessionId).expect(200)).body.status).toBe('requires_action');
    expect(world.sandbox.control.getPaymentMethods(mine.guestId)).toHaveLength(0);
    expect(await statusOf(mine.successUrl, world.apps[1].url)).toBe('succeeded');
    expect(await statusOf(other.successUrl, world.apps[1].url)).toBe('succeeded');
  });
});
