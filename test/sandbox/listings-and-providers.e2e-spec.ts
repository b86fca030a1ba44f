import { startTestSandbox, tokenizeBody, type SandboxClient } from './sandbox-helpers';

describe('sandbox listings and payment providers', () => {
  let client: SandboxClient;

  beforeAll(async () => {
    client = await startTestSandbox();
  });
  afterAll(() => client.sandbox.stop());

  it('pages listings with limit and skip', async () => {
    const all = await client.api('/v1/listings');
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ count: 6, limit: 25, skip: 0 });
    expect(all.body.results.map((l: { _id: string }) => l._id)).toEqual([
      'lst-seaside',
      'lst-city',
      'lst-mountain',
      'lst-closed',
      'lst-suites',
      'lst-test',
    ]);
    const page = await client.api('/v1/listings?limit=2&skip=1');
    expect(page.body).toMatchObject({ count: 6, limit: 2, skip: 1 });
    expect(page.body.results.map((l: { _id: string }) => l._id)).toEqual(['lst-city', 'lst-mountain']);
    expect((await client.api('/v1/listings?limit=-1')).status).toBe(400);
    expect((await client.api('/v1/listings?limit=abc')).body.message).toBe('Some of the request parameters are invalid');
  });

  it('returns one listing with its public and internal fields, 404 when unknown', async () => {
    const listing = await client.api('/v1/listings/lst-city');
    expect(listing.status).toBe(200);
    expect(listing.body).toMatchObject({
      _id: 'lst-city',
      title: expect.any(String),
      nickname: expect.any(String),
      address: { full: expect.any(String), city: 'Paris', country: 'FR' },
      pictures: expect.arrayContaining([{ original: expect.any(String), thumbnail: expect.any(String), caption: expect.any(String) }]),
      prices: { currency: 'EUR', basePrice: 180 },
      accommodates: 3,
      bedrooms: 1,
      bathrooms: 1,
      propertyType: 'Apartment',
    });
    expect(listing.body).toHaveProperty('owners');
    expect(listing.body).toHaveProperty('privateDescription');
    expect(listing.body).toHaveProperty('customFields');
    expect(listing.body).toHaveProperty('integrations');
    expect(listing.body.publicDescription).toHaveProperty('notes');
    const missing = await client.api('/v1/listings/lst-nowhere');
    expect(missing.status).toBe(404);
    expect(missing.body.message).toEqual(expect.any(String));
  });

  it('gives each active listing its own provider, with paymentProviderId distinct from _id and an apiKey', async () => {
    const ids = new Set<string>();
    for (const [listingId, currency] of [
      ['lst-seaside', 'USD'],
      ['lst-city', 'EUR'],
      ['lst-mountain', 'GBP'],
    ]) {
      const provider = await client.api(`/v1/payment-providers/provider-by-listing?listingId=${listingId}`);
      expect(provider.status).toBe(200);
      expect(provider.body).toMatchObject({
        paymentProviderId: expect.stringMatching(/^pp-/),
        status: 'ACTIVE',
        paymentProcessorKey: 'GUESTY_PAYMENTS',
        paymentProcessorName: 'GuestyPay',
        providerType: expect.any(String),
        accountId: expect.any(String),
        accountName: expect.any(String),
        defaultCurrency: currency,
        country: expect.any(String),
        isDefault: expect.any(Boolean),
        fallbackToDefault: false,
        createdAt: expect.any(String),
        apiKey: expect.any(String),
      });
      expect(provider.body._id).not.toBe(provider.body.paymentProviderId);
      ids.add(provider.body.paymentProviderId);
    }
    expect(ids.size).toBe(3);
  });

  it('hides an inactive provider unless includeInactiveProviders=true', async () => {
    const hidden = await client.api('/v1/payment-providers/provider-by-listing?listingId=lst-closed');
    expect(hidden.status).toBe(404);
    const shown = await client.api('/v1/payment-providers/provider-by-listing?listingId=lst-closed&includeInactiveProviders=true');
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ paymentProviderId: 'pp-closed', status: 'INACTIVE' });
  });

  it('answers 404 for an unknown listing and 400 without listingId', async () => {
    expect((await client.api('/v1/payment-providers/provider-by-listing?listingId=lst-nowhere')).status).toBe(404);
    const missing = await client.api('/v1/payment-providers/provider-by-listing');
    expect(missing.status).toBe(400);
    expect(missing.body.details).toEqual([{ field: 'listingId', message: expect.any(String) }]);
  });

  it('follows a switched provider and projects fields', async () => {
    client.control.setListingProvider('lst-seaside', 'pp-city');
    const switched = await client.api('/v1/payment-providers/provider-by-listing?listingId=lst-seaside&fields=paymentProviderId%20status');
    expect(switched.body).toEqual({ _id: 'ppdoc-city', paymentProviderId: 'pp-city', status: 'ACTIVE' });
    client.control.reset();
    client.forgetToken();
  });

  it('takes a provider offline and back with setProviderStatus', async () => {
    client.control.setProviderStatus('pp-city', 'INACTIVE');
    expect((await client.api('/v1/payment-providers/provider-by-listing?listingId=lst-city')).status).toBe(404);
    const tokenize = await client.tokenize(tokenizeBody({ paymentProviderId: 'pp-city', listingId: 'lst-city' }));
    expect(tokenize.status).toBe(400);
    expect(tokenize.body.details).toEqual([{ field: 'paymentProviderId', message: expect.any(String) }]);
    client.control.setProviderStatus('pp-city', 'ACTIVE');
    expect((await client.api('/v1/payment-providers/provider-by-listing?listingId=lst-city')).status).toBe(200);
  });

  it('answers 404 for unknown /v1 routes and 405 for a wrong method', async () => {
    expect((await client.api('/v1/nothing-here')).status).toBe(404);
    expect((await client.api('/v1/listings', { method: 'DELETE' })).status).toBe(405);
  });
});
