import { Webhook } from 'standardwebhooks';
import { startTestSandbox, webhookReceiver, type JsonBody, type SandboxClient } from './sandbox-helpers';

const NOW = 1_750_000_000_000;
const DAY = 24 * 3600 * 1000;

describe('sandbox charging as the platform does (policies, settlement, authentication, webhooks)', () => {
  let client: SandboxClient;

  beforeAll(async () => {
    client = await startTestSandbox({ clock: () => NOW, paymentVisibilityDelayMs: 500, chargeSettleDelayMs: 500 });
  });
  afterAll(() => client.sandbox.stop());
  beforeEach(() => {
    client.control.reset();
    client.forgetToken();
  });

  const money = async (reservationId: string): Promise<JsonBody> => (await client.api(`/v1/reservations/${reservationId}`)).body.money;
  const checkIn = async (reservationId: string) =>
    Date.parse((await client.api(`/v1/reservations/${reservationId}`)).body.checkIn as string);

  it('50 % at booking and 50 % 14 days before check-in (lst-city): half is charged now, half is scheduled', async () => {
    await client.payWithCard('res-checkout-eur', '4242424242424242');
    client.control.advanceClock(1_000);
    const after = await money('res-checkout-eur');
    expect(after).toMatchObject({ totalPaid: 220, balanceDue: 220, isFullyPaid: false });
    const arrival = await checkIn('res-checkout-eur');
    expect(after.payments).toEqual([
      expect.objectContaining({ amount: 220, status: 'SUCCEEDED', shouldBePaidAt: new Date(NOW).toISOString() }),
      expect.objectContaining({ amount: 220, status: 'PENDING', shouldBePaidAt: new Date(arrival - 14 * DAY).toISOString() }),
    ]);
    client.control.advanceClock(arrival - 14 * DAY - (NOW + 1_000) + 500);
    client.forgetToken(); // the day's access token expired meanwhile
    expect(await money('res-checkout-eur')).toMatchObject({ totalPaid: 440, balanceDue: 0, isFullyPaid: true });
  });

  it('two instalments due at once stay PENDING while the charges are held, and are both charged once released', async () => {
    // 13 days before check-in the split policy's two halves both fall due at the attach.
    client.control.advanceClock((await checkIn('res-checkout-eur')) - 13 * DAY - NOW);
    client.forgetToken();
    const attachedAt = client.control.now();
    client.control.holdCharges();
    await client.payWithCard('res-checkout-eur', '4242424242424242');
    client.control.advanceClock(60_000);
    const held = await money('res-checkout-eur');
    expect(held).toMatchObject({ totalPaid: 0, balanceDue: 440 });
    expect(held.payments).toEqual([
      expect.objectContaining({ amount: 220, status: 'PENDING', shouldBePaidAt: new Date(attachedAt).toISOString() }),
      expect.objectContaining({ amount: 220, status: 'PENDING', shouldBePaidAt: new Date(attachedAt).toISOString() }),
    ]);
    client.control.holdCharges(false);
    const released = await money('res-checkout-eur');
    expect(released).toMatchObject({ totalPaid: 440, balanceDue: 0, isFullyPaid: true });
    expect(released.payments.map((payment: JsonBody) => payment.status)).toEqual(['SUCCEEDED', 'SUCCEEDED']);
  });

  it('all 7 days before check-in (lst-mountain): nothing is charged at booking', async () => {
    await client.payWithCard('res-checkout-gbp', '4242424242424242');
    client.control.advanceClock(5_000);
    const arrival = await checkIn('res-checkout-gbp');
    const after = await money('res-checkout-gbp');
    expect(after).toMatchObject({ totalPaid: 0, balanceDue: 816 });
    expect(after.payments).toEqual([
      expect.objectContaining({ amount: 816, status: 'PENDING', shouldBePaidAt: new Date(arrival - 7 * DAY).toISOString() }),
    ]);
  });

  it('the authentication card waits for the guest (PENDING_AUTH) on an issuer page that completes or fails it', async () => {
    const paying = await client.payWithCard('res-checkout-usd', '4000002760003184');
    expect(paying.attach.status).toBe(201);
    client.control.advanceClock(1_000);
    const [waiting] = (await money('res-checkout-usd')).payments;
    expect(waiting).toMatchObject({
      status: 'PENDING_AUTH',
      amount: 858,
      authenticationRequiredData: { authenticationUrl: expect.stringMatching(/\/charges\/pay_\w+\/authenticate$/) },
    });
    const page = await fetch(waiting.authenticationRequiredData.authenticationUrl as string);
    expect(await page.text()).toMatch(/Confirm a payment of <strong>858.00 USD<\/strong>/);
    const action = (waiting.authenticationRequiredData.authenticationUrl as string).replace(/authenticate$/, 'authenticate');
    expect((await fetch(action, { method: 'POST' })).status).toBe(200);
    expect(await money('res-checkout-usd')).toMatchObject({
      totalPaid: 858,
      balanceDue: 0,
      payments: [expect.objectContaining({ status: 'SUCCEEDED' })],
    });

    const other = client.control.createReservation({
      listingId: 'lst-seaside',
      guestEmail: 'auth@example.com',
      balanceDue: 100,
      currency: 'USD',
    });
    await client.payWithCard(other.reservationId, '4000002760003184');
    client.control.advanceClock(1_000);
    const url = (await money(other.reservationId)).payments[0].authenticationRequiredData.authenticationUrl as string;
    await fetch(url.replace(/authenticate$/, 'fail'), { method: 'POST' });
    const failed = (await money(other.reservationId)).payments[0];
    expect(failed).toMatchObject({
      status: 'FAILED',
      attempts: expect.arrayContaining([
        expect.objectContaining({ payload: expect.objectContaining({ decline_code: 'authentication_failed' }) }),
      ]),
    });
    expect(failed.authenticationRequiredData).toBeUndefined();
  });

  it('signs and sends the payments webhooks with its whsec_ secret (Svix scheme)', async () => {
    const receiver = await webhookReceiver();
    try {
      client.control.setWebhookTarget(receiver.url);
      expect(client.control.webhookSecret).toMatch(/^whsec_/);
      await client.payWithCard('res-checkout-usd', '4242424242424242');
      // The attach is a change of the reservation: reservation.updated.v2 at once, nothing of payments yet.
      await client.control.webhooksSettled();
      expect(client.control.webhookDeliveries.map(({ type, status }) => ({ type, status }))).toEqual([
        { type: 'reservation.updated.v2', status: 204 },
      ]);
      client.control.advanceClock(1_000);
      await client.control.webhooksSettled();
      const paid = receiver.received.find((entry) => JSON.parse(entry.body).event === 'payments.received');
      const { headers, body } = paid!;
      expect(headers).toMatchObject({
        'svix-id': expect.stringMatching(/^msg_/),
        'svix-timestamp': String(Math.floor((NOW + 1_000) / 1000)),
      });
      // The signature is the scheme's over id.timestamp.body under the printed secret.
      const expected = new Webhook(client.control.webhookSecret).sign(headers['svix-id'] as string, new Date(NOW + 1_000), body);
      expect(headers['svix-signature']).toBe(expected);
      expect(JSON.parse(body)).toEqual({
        event: 'payments.received',
        payment: expect.objectContaining({
          reservationId: 'res-checkout-usd',
          amount: 858,
          currency: 'USD',
          paymentId: expect.stringMatching(/^pay_/),
        }),
      });
      // The money that came in changes the reservation and its folio too.
      expect(client.control.webhookDeliveries.slice(1).map(({ type, status }) => ({ type, status }))).toEqual([
        { type: 'payments.received', status: 204 },
        { type: 'reservation.updated.v2', status: 204 },
        { type: 'guest-folio.updated', status: 204 },
      ]);
    } finally {
      client.control.setWebhookTarget(undefined);
      await receiver.close();
    }
  });
});
