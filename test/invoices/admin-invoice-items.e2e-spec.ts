import { randomUUID } from 'node:crypto';
import { JournalSweep } from '../../src/journal/journal-sweep';
import { freshReservation } from '../utils/checkout-client';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';
import { ADMIN_KEY, adminClient, invoiceItemsAt, untouched, writesAt } from './invoice-test-helpers';
import { expectOneMessageFor } from '../utils/field-errors';

const lateCheckout = { normalType: 'CF', title: 'Late checkout', amount: 40, description: 'Check out at 14:00' };

const BAD_ITEMS: { name: string; body: Record<string, unknown>; field: string }[] = [
  {
    name: 'a date that does not exist (2026-02-30)',
    body: { ...lateCheckout, realizationDates: [{ date: '2026-02-30' }] },
    field: 'realizationDates.0.date',
  },
  {
    name: 'a date written 2026/01/01',
    body: { ...lateCheckout, realizationDates: [{ date: '2026/01/01' }] },
    field: 'realizationDates.0.date',
  },
  { name: 'the accommodation fare AF', body: { ...lateCheckout, normalType: 'AF' }, field: 'normalType' },
  { name: 'an unknown normalType', body: { ...lateCheckout, normalType: 'FEE' }, field: 'normalType' },
  { name: 'AFE without secondIdentifier', body: { ...lateCheckout, normalType: 'AFE' }, field: 'secondIdentifier' },
  {
    name: 'AFE with an empty secondIdentifier',
    body: { ...lateCheckout, normalType: 'AFE', secondIdentifier: '' },
    field: 'secondIdentifier',
  },
  { name: 'a secondIdentifier on CF', body: { ...lateCheckout, secondIdentifier: 'LATE_CHECKOUT' }, field: 'secondIdentifier' },
  {
    name: "a secondIdentifier outside the platform's values (TOWELS_EXTRA)",
    body: { ...lateCheckout, normalType: 'AFE', secondIdentifier: 'TOWELS_EXTRA' },
    field: 'secondIdentifier',
  },
  { name: 'no title', body: { normalType: 'CF', amount: 40 }, field: 'title' },
  { name: 'an amount sent as text', body: { ...lateCheckout, amount: '40' }, field: 'amount' },
  { name: 'no amount', body: { normalType: 'CF', title: 'Late checkout' }, field: 'amount' },
  { name: 'an empty realizationDates', body: { ...lateCheckout, realizationDates: [] }, field: 'realizationDates' },
  { name: 'an unknown field', body: { ...lateCheckout, upsell: true }, field: 'upsell' },
  { name: 'an isUpsellFee that is not a boolean', body: { ...lateCheckout, isUpsellFee: 'yes' }, field: 'isUpsellFee' },
  { name: 'a negative stayIndex', body: { ...lateCheckout, stayIndex: -1 }, field: 'stayIndex' },
];

describe('operator invoice items, current endpoint', () => {
  let world: SandboxedApps;
  const admin = () => adminClient(world.apps[0].url);

  beforeAll(async () => {
    world = await startSandboxedApps(1, { env: { ADMIN_API_KEY: ADMIN_KEY } });
  });

  afterAll(() => world.close());

  it('adds an item with realizationDates through the current endpoint and answers it', async () => {
    const { reservationId } = freshReservation(world);
    const before = writesAt(world);
    const body = { ...lateCheckout, realizationDates: [{ date: '2028-02-29' }] };
    const res = await admin().addItem(reservationId, body).expect(201);
    expect(res.body).toEqual({ _id: expect.any(String), ...lateCheckout });
    expect(writesAt(world)).toEqual({ current: before.current + 1, deprecated: before.deprecated });
    const stored = invoiceItemsAt(world, reservationId).find((item) => item._id === res.body._id);
    expect(stored).toMatchObject(body);
    expect(stored).not.toHaveProperty('secondIdentifier');
  });

  it('adds an AFE item with its secondIdentifier', async () => {
    const { reservationId } = freshReservation(world);
    const pet = { normalType: 'AFE', secondIdentifier: 'PET', title: 'Pet fee', amount: 25.5 };
    const res = await admin().addItem(reservationId, pet).expect(201);
    expect(res.body).toEqual({ _id: expect.any(String), ...pet });
  });

  it('answers 404 reservation_not_found for an unknown reservation, nothing written', async () => {
    const before = writesAt(world);
    const res = await admin().addItem('res-does-not-exist', lateCheckout).expect(404);
    expect(res.body.code).toBe('reservation_not_found');
    expect(writesAt(world)).toEqual(before);
  });

  it.each(BAD_ITEMS)('refuses $name with a field error, nothing sent or kept', async ({ body, field }) => {
    const { reservationId } = freshReservation(world);
    const state = await untouched(world, reservationId);
    const res = await admin().addItem(reservationId, body);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.code).toBe('validation_failed');
    expectOneMessageFor(res.body.errors, field);
    await state.verify();
  });

  it('requires an Idempotency-Key, replays the answer for the same key without a second write, and refuses another body', async () => {
    const { reservationId } = freshReservation(world);
    const missing = await admin().addItem(reservationId, lateCheckout, { key: '' }).expect(400);
    expect(JSON.stringify(missing.body.errors)).toContain('Idempotency-Key');
    const key = randomUUID();
    const first = await admin().addItem(reservationId, lateCheckout, { key }).expect(201);
    const writes = writesAt(world);
    const replay = await admin().addItem(reservationId, lateCheckout, { key }).expect(201);
    expect(replay.body).toEqual(first.body);
    const conflict = await admin()
      .addItem(reservationId, { ...lateCheckout, amount: 41 }, { key })
      .expect(422);
    expect(conflict.body.code).toBe('idempotency_conflict');
    expect(writesAt(world)).toEqual(writes);
    expect(invoiceItemsAt(world, reservationId).filter((item) => item.title === lateCheckout.title)).toHaveLength(1);
  });

  it('answers 201 with exactly one item when the answer of a write that happened is lost', async () => {
    const { reservationId } = freshReservation(world);
    const before = writesAt(world);
    world.sandbox.control.dropConnection('invoiceItems', { times: 1, afterHandling: true });
    const res = await admin().addItem(reservationId, lateCheckout).expect(201);
    const stored = invoiceItemsAt(world, reservationId).filter((item) => item.title === lateCheckout.title);
    expect(stored).toHaveLength(1);
    expect(res.body).toEqual({ _id: stored[0]._id, ...lateCheckout });
    expect(writesAt(world).current).toBe(before.current + 1);
  });

  it('answers 503 outcome_pending (never "safe to retry") for a write answered 500, and adds it once when retried past the settle horizon', async () => {
    const { reservationId } = freshReservation(world);
    const key = randomUUID();
    world.sandbox.control.forceStatus('invoiceItems', 500, { times: 1, body: { message: 'Internal error' } });
    const failed = await admin().addItem(reservationId, lateCheckout, { key }).expect(503);
    expect(failed.body.code).toBe('outcome_pending');
    expect(failed.body.detail).not.toMatch(/not added|safe to retry|nothing was changed/i);
    expect(invoiceItemsAt(world, reservationId).filter((item) => item.title === lateCheckout.title)).toHaveLength(0);
    const sentBefore = writesAt(world).current;
    await admin().addItem(reservationId, lateCheckout, { key }).expect(503);
    expect(writesAt(world).current).toBe(sentBefore);
    // Past WRITE_SETTLE_SECONDS with nothing on the folio, it surely did not land: the retry adds it.
    world.clocks[0].advance(121_000);
    let retried = await admin().addItem(reservationId, lateCheckout, { key });
    if (retried.status === 409) {
      // The replica's sweep was settling this very intent (its pass came due with the clock): the
      // retry is told to come back, as a client does after Retry-After, once that pass has ended.
      expect(retried.body.code).toBe('step_in_progress');
      await world.apps[0].app.get(JournalSweep).sweepOnce();
      retried = await admin().addItem(reservationId, lateCheckout, { key });
    }
    expect(retried.status).toBe(201);
    expect(invoiceItemsAt(world, reservationId).filter((item) => item.title === lateCheckout.title)).toHaveLength(1);
  });

  it("turns the upstream's 400 into a clear validation problem with its message", async () => {
    const { reservationId } = freshReservation(world);
    world.sandbox.control.forceStatus('invoiceItems', 400, { times: 1, body: { message: 'Some of the request parameters are invalid' } });
    const res = await admin().addItem(reservationId, lateCheckout).expect(400);
    expect(res.body).toMatchObject({
      code: 'validation_failed',
      detail: 'The booking platform refused the invoice item: Some of the request parameters are invalid',
    });
    expect(invoiceItemsAt(world, reservationId).filter((item) => item.title === lateCheckout.title)).toHaveLength(0);
  });
});
