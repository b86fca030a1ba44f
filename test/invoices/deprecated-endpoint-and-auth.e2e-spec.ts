import request from 'supertest';
import { freshReservation } from '../utils/checkout-client';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';
import { startTestApp, TestApp } from '../utils/test-app';
import { ADMIN_KEY, adminClient, invoiceItemsAt, untouched, withoutRequestId, writesAt } from './invoice-test-helpers';

// The deprecated endpoint requires a secondIdentifier on every item, whatever its normalType.
const lateCheckout = { normalType: 'CF', title: 'Late checkout', amount: 40, secondIdentifier: 'LATE_CHECKOUT' };
// The same item for the current endpoint, where a secondIdentifier is refused on CF.
const { secondIdentifier: _omitted, ...plainLateCheckout } = lateCheckout;

describe('operator invoice items, deprecated endpoint (INVOICE_ITEMS_ENDPOINT=deprecated)', () => {
  let world: SandboxedApps;
  const admin = () => adminClient(world.apps[0].url);

  beforeAll(async () => {
    world = await startSandboxedApps(1, { env: { ADMIN_API_KEY: ADMIN_KEY, INVOICE_ITEMS_ENDPOINT: 'deprecated' } });
  });

  afterAll(() => world.close());

  it('adds an item through the deprecated endpoint', async () => {
    const { reservationId } = freshReservation(world);
    const before = writesAt(world);
    const res = await admin()
      .addItem(reservationId, { ...lateCheckout, description: 'Check out at 14:00' })
      .expect(201);
    expect(res.body).toEqual({ _id: expect.any(String), ...lateCheckout, description: 'Check out at 14:00' });
    expect(writesAt(world)).toEqual({ current: before.current, deprecated: before.deprecated + 1 });
    expect(invoiceItemsAt(world, reservationId).map((item) => item._id)).toContain(res.body._id);
  });

  it('refuses an item without secondIdentifier with a clear field error, nothing sent or kept', async () => {
    const { reservationId } = freshReservation(world);
    const state = await untouched(world, reservationId);
    const res = await admin().addItem(reservationId, plainLateCheckout).expect(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.errors).toEqual([
      { field: 'secondIdentifier', message: expect.stringMatching(/required on every item.*INVOICE_ITEMS_ENDPOINT=deprecated/) },
    ]);
    await state.verify();
  });

  it("refuses a secondIdentifier outside the platform's values, nothing sent or kept", async () => {
    const { reservationId } = freshReservation(world);
    const state = await untouched(world, reservationId);
    const res = await admin()
      .addItem(reservationId, { ...lateCheckout, secondIdentifier: 'TOWELS_EXTRA' })
      .expect(400);
    expect(res.body.errors).toEqual([{ field: 'secondIdentifier', message: expect.stringMatching(/not one of the platform's values/) }]);
    await state.verify();
  });

  it('refuses an item with realizationDates with a clear field error, before anything is sent', async () => {
    const { reservationId } = freshReservation(world);
    const state = await untouched(world, reservationId);
    const res = await admin()
      .addItem(reservationId, { ...lateCheckout, realizationDates: [{ date: '2026-07-14' }] })
      .expect(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.errors).toEqual([{ field: 'realizationDates', message: expect.stringMatching(/INVOICE_ITEMS_ENDPOINT=deprecated/) }]);
    await state.verify();
  });
});

describe('operator key (ADMIN_API_KEY)', () => {
  let world: SandboxedApps;
  let keyless: TestApp;

  beforeAll(async () => {
    world = await startSandboxedApps(1, { env: { ADMIN_API_KEY: ADMIN_KEY, TRUST_PROXY: '1' } });
    keyless = await startTestApp();
  });

  afterAll(async () => {
    await keyless.close();
    await world.close();
  });

  it('without a configured key, answers exactly as for an unknown route', async () => {
    const hidden = await adminClient(keyless.url).addItem('res-checkout-usd', plainLateCheckout, { authorization: `Bearer ${ADMIN_KEY}` });
    const unknown = await request(keyless.url)
      .post('/admin/no-such-route')
      .set('Authorization', `Bearer ${ADMIN_KEY}`)
      .send(plainLateCheckout);
    expect(hidden.status).toBe(404);
    expect(hidden.body.code).toBe('not_found');
    expect(withoutRequestId(hidden.body)).toEqual(withoutRequestId(unknown.body));
    expect(hidden.headers['content-type']).toBe(unknown.headers['content-type']);
    expect(hidden.headers['www-authenticate']).toBeUndefined();
  });

  it.each([
    ['no Authorization header', null],
    ['a wrong key', 'Bearer not-the-operator-key-0123456789'],
    ['the key with one character more', `Bearer ${ADMIN_KEY}x`],
    ['the key under another scheme', `Basic ${ADMIN_KEY}`],
  ])('answers 401 with WWW-Authenticate to %s, nothing sent or kept', async (_name, authorization) => {
    const { reservationId } = freshReservation(world);
    const state = await untouched(world, reservationId);
    const res = await adminClient(world.apps[0].url).addItem(reservationId, plainLateCheckout, { authorization });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('unauthorized');
    expect(res.headers['www-authenticate']).toBe('Bearer');
    await state.verify();
  });

  it('counts wrong keys and pauses a network that sends more than 10 a minute, right key or not; other networks go on', async () => {
    const guess = (address: string, key: string) =>
      request(world.apps[0].url)
        .get('/admin/reservations/res-checkout-usd/payment-diagnostics')
        .set('X-Forwarded-For', address)
        .set('Authorization', `Bearer ${key}`);
    const answers = [];
    for (let i = 0; i < 12; i += 1) answers.push(await guess('203.0.113.77', `guess-${i}-0123456789abcdef`));
    expect(answers.map((answer) => answer.status)).toEqual([...Array<number>(10).fill(401), 429, 429]);
    expect(Number(answers[11].headers['retry-after'])).toBeGreaterThan(0);
    expect(answers[11].body.code).toBe('rate_limited');
    // Paused: the right key from that network waits too, so a guessing run cannot tell a hit.
    expect((await guess('203.0.113.77', ADMIN_KEY)).status).toBe(429);
    expect((await guess('198.18.5.5', ADMIN_KEY)).status).toBe(200);
    const metrics = (await request(world.apps[0].url).get('/metrics')).text;
    expect(metrics).toMatch(/^admin_key_failures_total \d+/m);
    expect(Number(/^admin_key_failures_total (\d+)/m.exec(metrics)![1])).toBeGreaterThanOrEqual(11);
    // Nest's logger is one per process: the line reaches the app that set it up last.
    const logged = [...world.apps[0].logs.entries(), ...keyless.logs.entries()].filter(
      (entry) => entry.msg === 'an operator route was called with a wrong or missing key',
    );
    expect(logged.length).toBeGreaterThanOrEqual(11);
    expect(JSON.stringify(logged)).not.toContain('guess-');
  });

  it('lets the right key through', async () => {
    const { reservationId } = freshReservation(world);
    await adminClient(world.apps[0].url)
      .addItem(reservationId, plainLateCheckout, { authorization: `bearer ${ADMIN_KEY}` })
      .expect(201);
  });
});
