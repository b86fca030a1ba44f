import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { cardBody, checkoutClient, freshReservation } from '../utils/checkout-client';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';
import { invoiceItemsAt, untouched, writesAt } from './invoice-test-helpers';
import { expectOneMessageFor } from '../utils/field-errors';

const CATALOGUE = [
  { code: 'late-checkout', normalType: 'CF', title: 'Late checkout', amount: 40, description: 'Check out at 14:00' },
  { code: 'pet', normalType: 'AFE', secondIdentifier: 'PET', title: 'Pet fee', amount: 25.5 },
];

const BAD_BODIES: { name: string; body: unknown; field: string }[] = [
  { name: 'an unknown code', body: { items: [{ code: 'spa' }] }, field: 'items.0.code' },
  { name: 'quantity 0', body: { items: [{ code: 'pet', quantity: 0 }] }, field: 'items.0.quantity' },
  { name: 'quantity 11', body: { items: [{ code: 'pet', quantity: 11 }] }, field: 'items.0.quantity' },
  { name: 'quantity 1.5', body: { items: [{ code: 'pet', quantity: 1.5 }] }, field: 'items.0.quantity' },
  { name: 'a quantity sent as text', body: { items: [{ code: 'pet', quantity: '2' }] }, field: 'items.0.quantity' },
  { name: 'a code listed twice', body: { items: [{ code: 'pet' }, { code: 'pet' }] }, field: 'items.1.code' },
  { name: 'no items', body: { items: [] }, field: 'items' },
  { name: 'more than 10 items', body: { items: Array.from({ length: 11 }, () => ({ code: 'pet' })) }, field: 'items' },
  { name: 'an amount from the browser', body: { items: [{ code: 'pet', amount: 1 }] }, field: 'items.0.amount' },
];

describe('checkout extras', () => {
  let world: SandboxedApps;
  const site = () => checkoutClient(world.apps[0].url);
  const addExtras = (sessionId: string, body: unknown, key: string = randomUUID()) =>
    request(world.apps[0].url)
      .post(`/checkout/sessions/${sessionId}/extras`)
      .set('Idempotency-Key', key)
      .send(body as object);

  async function session(paid = true) {
    const reservation = freshReservation(world, 300);
    const created = await site().createSession(reservation.reservationId, reservation.guestEmail).expect(201);
    const sessionId = created.body.id as string;
    if (paid) await site().submit(sessionId, cardBody()).expect(200);
    return { sessionId, reservationId: reservation.reservationId };
  }

  const extrasAt = (reservationId: string) => invoiceItemsAt(world, reservationId).filter((item) => item.normalType !== 'AF');

  beforeAll(async () => {
    // Budgets wider than the upstream's: this file is about extras, not about queueing for slots.
    world = await startSandboxedApps(1, {
      env: { CHECKOUT_EXTRAS: JSON.stringify(CATALOGUE), CHECKOUT_IP_RATE_LIMIT: '1000/m', UPSTREAM_RATE_LIMITS: '100/s,1000/m,10000/h' },
      sandbox: { paymentVisibilityDelayMs: 0, rateLimits: { perSecond: 100, perMinute: 1000, perHour: 10000 } },
    });
  });

  afterAll(() => world.close());

  it('adds one invoice item per line, amount = catalogue amount × quantity', async () => {
    const { sessionId, reservationId } = await session();
    const res = await addExtras(sessionId, { items: [{ code: 'late-checkout', quantity: 2 }, { code: 'pet' }] }).expect(201);
    const stored = extrasAt(reservationId);
    expect(stored).toEqual([
      expect.objectContaining({
        title: 'Late checkout',
        amount: 80,
        normalType: 'CF',
        description: 'Check out at 14:00 × 2',
        isUpsellFee: true,
      }),
      expect.objectContaining({ title: 'Pet fee', amount: 25.5, normalType: 'AFE', secondIdentifier: 'PET', isUpsellFee: true }),
    ]);
    expect(stored[1].description).toBeUndefined();
    expect(stored[0].secondIdentifier).toBeUndefined();
    expect(res.body).toEqual({
      items: [
        { code: 'late-checkout', quantity: 2, title: 'Late checkout', amount: 80, normalType: 'CF', invoiceItemId: stored[0]._id },
        { code: 'pet', quantity: 1, title: 'Pet fee', amount: 25.5, normalType: 'AFE', invoiceItemId: stored[1]._id },
      ],
    });
  });

  it('replays the answer for the same key without a second write, and refuses another body with it (422)', async () => {
    const { sessionId, reservationId } = await session();
    const key = randomUUID();
    const first = await addExtras(sessionId, { items: [{ code: 'pet', quantity: 3 }] }, key).expect(201);
    const writes = writesAt(world);
    const replay = await addExtras(sessionId, { items: [{ code: 'pet', quantity: 3 }] }, key).expect(201);
    expect(replay.body).toEqual(first.body);
    const conflict = await addExtras(sessionId, { items: [{ code: 'pet', quantity: 2 }] }, key).expect(422);
    expect(conflict.body.code).toBe('idempotency_conflict');
    expect(writesAt(world)).toEqual(writes);
    expect(extrasAt(reservationId)).toEqual([expect.objectContaining({ title: 'Pet fee', amount: 76.5 })]);
  });

  describe('refusals leave the reservation, the upstream and Redis as they were', () => {
    let paid: { sessionId: string; reservationId: string };

    beforeAll(async () => {
      paid = await session();
    });

    it.each(BAD_BODIES)('refuses $name', async ({ body, field }) => {
      const state = await untouched(world, paid.reservationId);
      const res = await addExtras(paid.sessionId, body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
      expectOneMessageFor(res.body.errors, field);
      await state.verify();
    });

    it('requires an Idempotency-Key', async () => {
      const state = await untouched(world, paid.reservationId);
      const res = await addExtras(paid.sessionId, { items: [{ code: 'pet' }] }, '').expect(400);
      expect(JSON.stringify(res.body.errors)).toContain('Idempotency-Key');
      await state.verify();
    });

    it('refuses a session whose payment method is not attached yet (409)', async () => {
      const unpaid = await session(false);
      const state = await untouched(world, unpaid.reservationId);
      const res = await addExtras(unpaid.sessionId, { items: [{ code: 'pet' }] }).expect(409);
      expect(res.body.code).toBe('invalid_state');
      await state.verify();
    });

    it('answers 404 for an unknown session', async () => {
      const state = await untouched(world, paid.reservationId);
      const res = await addExtras(`cs_${'x'.repeat(32)}`, { items: [{ code: 'pet' }] }).expect(404);
      expect(res.body.code).toBe('session_not_found');
      await state.verify();
    });
  });

  it('after a line answered 500, nothing more is sent until the settle horizon; then the retry with the same key adds only the rest', async () => {
    const { sessionId, reservationId } = await session();
    const key = randomUUID();
    const before = writesAt(world).current;
    world.sandbox.control.setRouteDelay('invoiceItems', 150);
    const first = addExtras(sessionId, { items: [{ code: 'late-checkout' }, { code: 'pet' }] }, key).then((res) => res);
    // The second write is on its way (held by the delay): make it fail before it is handled.
    await new Promise<void>((resolve) => {
      const check = () => (writesAt(world).current >= before + 2 ? resolve() : setTimeout(check, 5));
      check();
    });
    world.sandbox.control.setRouteDelay('invoiceItems', 0);
    world.sandbox.control.forceStatus('invoiceItems', 500, { times: 1, body: { message: 'Internal error' } });
    const failed = await first;
    // A 500 does not prove the platform will not act: the guest is never told it is safe to retry.
    expect(failed.status).toBe(503);
    expect(failed.body.code).toBe('outcome_pending');
    expect(failed.headers['retry-after']).toMatch(/^\d+$/);
    expect(failed.body.detail).not.toMatch(/safe to retry|nothing was changed/i);
    expect(extrasAt(reservationId).map((item) => item.title)).toEqual(['Late checkout']);
    const early = await addExtras(sessionId, { items: [{ code: 'late-checkout' }, { code: 'pet' }] }, key).expect(503);
    expect(early.body.code).toBe('outcome_pending');
    expect(writesAt(world).current).toBe(before + 2);
    // Past WRITE_SETTLE_SECONDS with nothing on the folio, the line surely did not land.
    world.clocks[0].advance(121_000);
    const retried = await addExtras(sessionId, { items: [{ code: 'late-checkout' }, { code: 'pet' }] }, key).expect(201);
    expect(retried.body.items.map((item: { code: string }) => item.code)).toEqual(['late-checkout', 'pet']);
    expect(extrasAt(reservationId).map((item) => item.title)).toEqual(['Late checkout', 'Pet fee']);
    // The answer is kept under the key: a third send with it adds nothing.
    await addExtras(sessionId, { items: [{ code: 'late-checkout' }, { code: 'pet' }] }, key).expect(201);
    expect(extrasAt(reservationId).map((item) => item.title)).toEqual(['Late checkout', 'Pet fee']);
  });
});
