import request from 'supertest';
import { CARDS, cardBody, checkoutClient, freshReservation } from '../utils/checkout-client';
import { awaitCharge, sandboxPayments } from '../utils/charges';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';

const SETTLE_DELAY_MS = 500;
// The sandbox's card whose charge waits for the guest's authentication (docs/sandbox.md).
const AUTHENTICATION_CARD = '4000002760003184';

/**
 * A failed charge can be mended (docs/product-spec.md §6.5): the platform charges the card a moment
 * after the attach; when that charge fails the session stays succeeded, says charge_failed, and
 * takes one replacement card, attached through the journal exactly once.
 */
describe('mending a failed charge with another card', () => {
  let world: SandboxedApps;

  beforeAll(async () => {
    world = await startSandboxedApps(2, {
      env: { CHECKOUT_CARD_ATTEMPTS: '20/h' },
      sandbox: { paymentVisibilityDelayMs: 0, chargeSettleDelayMs: SETTLE_DELAY_MS },
    });
  });

  afterAll(() => world.close());

  const site = (index = 0) => checkoutClient(world.apps[index].url);
  const paymentStatus = (sessionId: string, index = 0) =>
    request(world.apps[index].url).get(`/checkout/sessions/${sessionId}/payment-status`);
  const methodsOn = (guestId: string, reservationId: string) =>
    world.sandbox.control.getPaymentMethods(guestId).filter((method) => method.reservationId === reservationId);
  const attaches = () => world.sandbox.control.counters.requests.paymentMethods ?? 0;

  /** A session whose insufficient-funds card was attached, and whose charge the platform then reported failed. */
  async function failedCharge() {
    const reservation = freshReservation(world, 300);
    const created = await site().createSession(reservation.reservationId, reservation.guestEmail).expect(201);
    const sessionId = created.body.id as string;
    const paid = await site().submit(sessionId, cardBody(CARDS.processorError)).expect(200);
    expect(paid.body).toMatchObject({ status: 'succeeded', paymentMethod: { last4: '0341' } });
    await awaitCharge(world, reservation.reservationId, 'FAILED', SETTLE_DELAY_MS);
    const status = await paymentStatus(sessionId).expect(200);
    expect(status.body).toMatchObject({ state: 'failed', diagnosis: { code: 'processor_error', category: 'insufficient_funds' } });
    return { ...reservation, sessionId };
  }

  it('a card whose charge is scheduled: the session says nothing more is needed, and takes no other card', async () => {
    const reservation = freshReservation(world, 300);
    const created = await site().createSession(reservation.reservationId, reservation.guestEmail).expect(201);
    await site().submit(created.body.id, cardBody(CARDS.noThreeDs)).expect(200);
    await paymentStatus(created.body.id)
      .expect(200)
      .expect((res) => expect(res.body.state).toBe('scheduled'));
    const session = await site(1).getSession(created.body.id).expect(200);
    expect(session.body).toMatchObject({ status: 'succeeded', charge: { next: 'nothing' } });
    expect(session.body.lastError).toBeUndefined();
    const before = attaches();
    const again = await site().submit(created.body.id, cardBody(CARDS.noThreeDs)).expect(409);
    expect(again.body.code).toBe('invalid_state');
    expect(attaches()).toBe(before);
  });

  it('after a failed charge the session stays succeeded with charge_failed; a good card replaces it once, even with its answer lost', async () => {
    const { sessionId, reservationId, guestId } = await failedCharge();
    const told = await site(1).getSession(sessionId).expect(200);
    expect(told.body).toMatchObject({
      status: 'succeeded',
      lastError: { code: 'charge_failed' },
      charge: { next: 'another_card' },
      paymentMethod: { last4: '0341' },
    });
    expect(told.body.lastError.message).not.toContain('Your card has insufficient funds.');

    const before = attaches();
    // The replacement lands, but its answer is lost: the journal finds it on the reservation.
    world.sandbox.control.dropConnection('paymentMethods', { times: 1, afterHandling: true });
    const key = 'replacement-key-1';
    const mended = await site().submit(sessionId, cardBody(CARDS.noThreeDs), key).expect(200);
    expect(mended.body).toMatchObject({ status: 'succeeded', paymentMethod: { last4: '4242' } });
    expect(mended.body.lastError).toBeUndefined();
    expect(mended.body.charge).toBeUndefined();
    // The key's retry on the other replica answers what landed.
    const retried = await site(1).submit(sessionId, cardBody(CARDS.noThreeDs), key).expect(200);
    expect(retried.body.paymentMethod).toEqual(mended.body.paymentMethod);
    expect(attaches() - before).toBe(1);
    expect(
      methodsOn(guestId, reservationId)
        .map((method) => method.last4 as string)
        .sort(),
    ).toEqual(['0341', '4242']);

    // The platform charges the replacement; payment-status reads it afresh (the attach dropped what it served).
    await awaitCharge(world, reservationId, 'SUCCEEDED', SETTLE_DELAY_MS);
    expect(
      sandboxPayments(world, reservationId)
        .map((payment) => payment.status)
        .sort(),
    ).toEqual(['FAILED', 'SUCCEEDED']);
    const status = await paymentStatus(sessionId, 1).expect(200);
    expect(status.body).toMatchObject({ state: 'paid', amountPaid: 300, amountDue: 0 });
    await site()
      .getSession(sessionId)
      .expect(200)
      .expect((res) => expect(res.body).toMatchObject({ status: 'succeeded', charge: { next: 'nothing' } }));

    // Mended: a third card is refused, nothing sent.
    const third = await site().submit(sessionId, cardBody(CARDS.noThreeDs)).expect(409);
    expect(third.body.code).toBe('invalid_state');
    expect(attaches() - before).toBe(1);
  });

  it('takes a replacement as a token made with the upstream form', async () => {
    const { sessionId, reservationId, guestId } = await failedCharge();
    const tokenized = await fetch(`${world.sandbox.urls.payUrl}/api/tokenize/v2`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        ...cardBody(CARDS.noThreeDs),
        paymentProviderId: 'pp-seaside',
        listingId: 'lst-seaside',
        threeDS: { amount: 300, currency: 'USD' },
      }),
    });
    const { _id } = (await tokenized.json()) as { _id: string };
    const mended = await site(1).submit(sessionId, { token: _id }).expect(200);
    expect(mended.body).toMatchObject({ status: 'succeeded', paymentMethod: { id: expect.any(String) } });
    expect(mended.body.lastError).toBeUndefined();
    expect(methodsOn(guestId, reservationId)).toHaveLength(2);
  });
  it('a charge waiting for authentication: the session says authenticate, with the issuer page, and takes no other card', async () => {
    const reservation = freshReservation(world, 300);
    const created = await site().createSession(reservation.reservationId, reservation.guestEmail).expect(201);
    await site().submit(created.body.id, cardBody(AUTHENTICATION_CARD)).expect(200);
    await awaitCharge(world, reservation.reservationId, 'PENDING_AUTH', SETTLE_DELAY_MS);
    const status = await paymentStatus(created.body.id).expect(200);
    expect(status.body).toMatchObject({
      state: 'requires_authentication',
      nextAction: { type: 'redirect', redirectUrl: expect.stringContaining('/authenticate') },
    });
    const session = await site(1).getSession(created.body.id).expect(200);
    expect(session.body).toMatchObject({
      status: 'succeeded',
      charge: { next: 'authenticate', redirectUrl: status.body.nextAction.redirectUrl },
    });
    expect(session.body.lastError).toBeUndefined();
    const before = attaches();
    await site().submit(created.body.id, cardBody(CARDS.noThreeDs)).expect(409);
    expect(attaches()).toBe(before);
  });

  it('a replacement card that asks for 3-D Secure: the session stays succeeded with nextAction, and the return attaches it once', async () => {
    const { sessionId, reservationId, guestId } = await failedCharge();
    const waiting = await site().submit(sessionId, cardBody(CARDS.threeDs)).expect(200);
    expect(waiting.body).toMatchObject({ status: 'succeeded', lastError: { code: 'charge_failed' }, nextAction: { type: 'redirect' } });
    const authUrl = waiting.body.nextAction.redirectUrl as string;
    expect(await fetch(authUrl).then((page) => page.text())).toMatch(/Authenticate/);
    const pressed = await fetch(`${authUrl}/authenticate`, { method: 'POST', redirect: 'manual' });
    expect(pressed.status).toBe(303);
    const successUrl = new URL(pressed.headers.get('location')!);
    const onReplica = new URL(world.apps[1].url);
    successUrl.host = onReplica.host;
    for (let visit = 0; visit < 2; visit += 1) {
      // The return, then a reload of it: one attach.
      const landed = await fetch(successUrl, { redirect: 'manual' });
      expect(landed.status).toBe(303);
      expect(new URL(landed.headers.get('location')!).searchParams.get('status')).toBe('succeeded');
    }
    const mended = await site().getSession(sessionId).expect(200);
    expect(mended.body).toMatchObject({ status: 'succeeded', paymentMethod: { last4: '3220' } });
    expect(mended.body.lastError).toBeUndefined();
    expect(mended.body.nextAction).toBeUndefined();
    expect(methodsOn(guestId, reservationId)).toHaveLength(2);
  });

  it('a replacement whose 3-D Secure fails: the session stays succeeded with charge_failed, and another card may follow', async () => {
    const { sessionId } = await failedCharge();
    const waiting = await site().submit(sessionId, cardBody(CARDS.threeDs)).expect(200);
    const authUrl = waiting.body.nextAction.redirectUrl as string;
    const pressed = await fetch(`${authUrl}/fail`, { method: 'POST', redirect: 'manual' });
    const failureUrl = new URL(pressed.headers.get('location')!);
    failureUrl.host = new URL(world.apps[0].url).host;
    const landed = await fetch(failureUrl, { redirect: 'manual' });
    // The return tells the page this attempt failed; the session (what the page trusts) still has its card on file.
    expect(new URL(landed.headers.get('location')!).searchParams.get('status')).toBe('failed');
    const session = await site().getSession(sessionId).expect(200);
    expect(session.body).toMatchObject({ status: 'succeeded', lastError: { code: 'charge_failed' }, paymentMethod: { last4: '0341' } });
    expect(session.body.nextAction).toBeUndefined();
    await site()
      .submit(sessionId, cardBody(CARDS.noThreeDs))
      .expect(200)
      .expect((res) => expect(res.body.paymentMethod.last4).toBe('4242'));
  });
});
