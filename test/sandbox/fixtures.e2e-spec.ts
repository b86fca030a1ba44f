import { describeSandbox, SANDBOX_LISTINGS, SANDBOX_RESERVATIONS } from '../../sandbox/start-sandbox';
import { startTestSandbox, type SandboxClient } from './sandbox-helpers';

describe('sandbox fixture guide', () => {
  let client: SandboxClient;

  beforeAll(async () => {
    client = await startTestSandbox();
  });
  afterAll(() => client.sandbox.stop());

  it.each(SANDBOX_RESERVATIONS.map((r) => [r.reservationId, r]))('describes %s as seeded', async (_id, guide) => {
    const answer = await client.api(`/v1/reservations/${guide.reservationId}`);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      listingId: guide.listingId,
      guest: { email: guide.guestEmail },
      money: { balanceDue: guide.balanceDue, currency: guide.currency },
    });
  });

  it.each(SANDBOX_LISTINGS.map((l) => [l.listingId, l]))('describes %s and its provider as seeded', async (_id, guide) => {
    const provider = await client.api(
      `/v1/payment-providers/provider-by-listing?listingId=${guide.listingId}&includeInactiveProviders=true`,
    );
    expect(provider.body).toMatchObject({ paymentProviderId: guide.paymentProviderId, defaultCurrency: guide.currency });
    expect(provider.body.status === 'INACTIVE').toBe(guide.note.includes('INACTIVE'));
  });

  it('prints URLs, credentials, fixtures and test cards', () => {
    const text = describeSandbox(client.urls);
    for (const expected of [client.urls.apiUrl, client.urls.payUrl, 'sandbox-client-id', 'res-mismatch', '4000000000000119']) {
      expect(text).toContain(expected);
    }
  });
});
