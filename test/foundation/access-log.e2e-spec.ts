import request from 'supertest';
import { checkoutClient, freshReservation } from '../utils/checkout-client';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';

describe('the access log names routes, never session ids', () => {
  let world: SandboxedApps;

  beforeAll(async () => {
    world = await startSandboxedApps(1);
  });

  afterAll(() => world.close());

  it('logs each request with its route template, and no line holds the session id', async () => {
    const url = world.apps[0].url;
    const { reservationId, guestEmail } = freshReservation(world);
    const created = await checkoutClient(url).createSession(reservationId, guestEmail).expect(201);
    const id = created.body.id as string;
    await request(url).get(`/checkout/sessions/${id}`).expect(200);
    await request(url).get(`/checkout/sessions/${id}/payment-status`).expect(200);
    await request(url).post(`/checkout/sessions/${id}/payment-method`).set('Idempotency-Key', 'k-1').send({}).expect(400);
    await request(url).get(`/checkout/sessions/${id}/no-such-route?session=${id}`).expect(404);

    const access = world.apps[0].logs.entries().filter((entry) => entry.msg === 'request');
    expect(access.map((entry) => entry.route)).toEqual(
      expect.arrayContaining([
        '/checkout/sessions',
        '/checkout/sessions/:id',
        '/checkout/sessions/:id/payment-status',
        '/checkout/sessions/:id/payment-method',
        'unmatched',
      ]),
    );
    expect(world.apps[0].logs.text).not.toContain(id);
    expect(world.apps[0].logs.text).not.toContain(id.slice(3, 20));
  });
});
