import { startTestSandbox, type SandboxClient } from './sandbox-helpers';

describe('sandbox invoice items', () => {
  let client: SandboxClient;

  beforeAll(async () => {
    client = await startTestSandbox();
  });
  afterAll(() => client.sandbox.stop());
  beforeEach(() => {
    client.control.reset();
    client.forgetToken();
  });

  const current = (id: string, body: unknown) => client.api(`/v1/invoice-items/reservation/${id}`, { body });
  const deprecated = (id: string, body: unknown) => client.api(`/v1/reservations/${id}/invoiceItems`, { body });

  it('adds an item on the current endpoint, with realizationDates, and raises balanceDue', async () => {
    const answer = await current('res-unpaid', {
      title: 'Late checkout',
      amount: 40,
      normalType: 'AFE',
      secondIdentifier: 'LATE_CHECKOUT',
      description: 'Leave at 2 pm',
      // The reference requires `date` in every entry, `from`/`to` beside it (changelog of 2026-04-27).
      realizationDates: [{ date: '2028-02-29' }, { date: '2028-03-01', from: '2028-03-01', to: '2028-03-02' }],
    });
    expect(answer.status).toBe(200);
    // The updated folio with the new item, as the reference says, not the item alone.
    expect(answer.body).toMatchObject({ reservationId: 'res-unpaid', currency: expect.any(String) });
    const added = (answer.body.invoiceItems as { _id: string; title: string }[]).filter((item) => item.title === 'Late checkout');
    expect(added).toEqual([
      {
        _id: expect.any(String),
        title: 'Late checkout',
        amount: 40,
        normalType: 'AFE',
        secondIdentifier: 'LATE_CHECKOUT',
        description: 'Leave at 2 pm',
        isTax: false,
        realizationDates: [{ date: '2028-02-29' }, { date: '2028-03-01', from: '2028-03-01', to: '2028-03-02' }],
      },
    ]);
    const money = (await client.api('/v1/reservations/res-unpaid')).body.money;
    expect(money.balanceDue).toBe(634);
    expect(money.invoiceItems).toContainEqual(
      expect.objectContaining({ _id: added[0]._id, normalType: 'AFE', secondIdentifier: 'LATE_CHECKOUT', isTax: false }),
    );
  });

  it('adds an item on the deprecated endpoint but refuses realizationDates there', async () => {
    const added = await deprecated('res-unpaid', { title: 'Cleaning', amount: 25, normalType: 'CF', secondIdentifier: 'CLEANING' });
    expect(added.status).toBe(200);
    // The whole reservation, its invoice items holding the new one, as the reference answers there.
    expect(added.body).toMatchObject({ _id: 'res-unpaid', money: { balanceDue: 619 } });
    expect(added.body.money.invoiceItems).toContainEqual(
      expect.objectContaining({ title: 'Cleaning', amount: 25, normalType: 'CF', secondIdentifier: 'CLEANING' }),
    );
    const refused = await deprecated('res-unpaid', {
      title: 'Cleaning',
      amount: 25,
      normalType: 'CF',
      secondIdentifier: 'CLEANING',
      realizationDates: [{ date: '2028-01-01' }],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.details).toEqual([{ field: 'realizationDates', message: expect.any(String) }]);
    expect((await client.api('/v1/reservations/res-unpaid')).body.money.balanceDue).toBe(619);
  });

  it.each([
    ['title', { amount: 10, normalType: 'CF' }],
    ['amount', { title: 'x', amount: '10', normalType: 'CF' }],
    ['normalType', { title: 'x', amount: 10 }],
    ['normalType', { title: 'x', amount: 10, normalType: 'AF' }],
    ['normalType', { title: 'x', amount: 10, normalType: 'PET' }],
    ['secondIdentifier', { title: 'x', amount: 10, normalType: 'AFE' }],
    ['secondIdentifier', { title: 'x', amount: 10, normalType: 'CF', secondIdentifier: 'CLEANING' }],
    ['realizationDates[0]', { title: 'x', amount: 10, normalType: 'CF', realizationDates: [{ date: '2026-02-30' }] }],
    ['realizationDates[0]', { title: 'x', amount: 10, normalType: 'CF', realizationDates: [{ date: '2026-2-3' }] }],
    [
      'realizationDates[0]',
      { title: 'x', amount: 10, normalType: 'CF', realizationDates: [{ date: '2026-03-02', from: '2026-03-02', to: '2026-03-01' }] },
    ],
    // Refused by the reference itself (sandbox/open-api/reference-gate.ts): every entry needs its date.
    [
      'realizationDates[0].date',
      { title: 'x', amount: 10, normalType: 'CF', realizationDates: [{ from: '2026-03-01', to: '2026-03-02' }] },
    ],
    ['realizationDates', { title: 'x', amount: 10, normalType: 'CF', realizationDates: '2026-03-01' }],
  ])('refuses a bad %s with "Some of the request parameters are invalid"', async (field, body) => {
    const answer = await current('res-unpaid', body);
    expect(answer.status).toBe(400);
    expect(answer.body.message).toBe('Some of the request parameters are invalid');
    expect(answer.body.details).toEqual(expect.arrayContaining([{ field, message: expect.any(String) }]));
  });

  it('accepts every allowed normalType and marks taxes', async () => {
    const answer = await current('res-unpaid', { title: 'City tax', amount: 5.5, normalType: 'CT' });
    expect(answer.status).toBe(200);
    const items = (await client.api('/v1/reservations/res-unpaid')).body.money.invoiceItems;
    const cityTax = items.find((item: { title: string }) => item.title === 'City tax');
    expect(cityTax).toMatchObject({ isTax: true });
    // None sent, none shown: the reference types secondIdentifier a string, never null.
    expect(cityTax).not.toHaveProperty('secondIdentifier');
  });

  it('takes the 2026-04-27 additions: the new secondIdentifier values, isUpsellFee and stayIndex, and refuses them in the wrong type', async () => {
    const added = await current('res-unpaid', {
      title: 'Travel cover',
      amount: 12,
      normalType: 'AFE',
      secondIdentifier: 'GUESTY_SHIELD',
      isUpsellFee: true,
      stayIndex: 0,
    });
    expect(added.status).toBe(200);
    expect(added.body.invoiceItems).toContainEqual(
      expect.objectContaining({ title: 'Travel cover', secondIdentifier: 'GUESTY_SHIELD', isUpsellFee: true, stayIndex: 0 }),
    );
    const before = (await client.api('/v1/reservations/res-unpaid')).body.money.invoiceItems.length;
    const wrong = await current('res-unpaid', {
      title: 'Cover',
      amount: 5,
      normalType: 'AFE',
      secondIdentifier: 'DIRECT_SERVICE',
      isUpsellFee: 'yes',
    });
    // The reference's own type check answers first (sandbox/open-api/reference-gate.ts).
    expect(wrong.status).toBe(400);
    expect(wrong.body.details).toEqual([{ field: 'isUpsellFee', message: 'must be boolean' }]);
    const negative = await current('res-unpaid', {
      title: 'Cover',
      amount: 5,
      normalType: 'AFE',
      secondIdentifier: 'DIRECT_SERVICE',
      stayIndex: -1,
    });
    expect(negative.status).toBe(400);
    expect(negative.body.details).toEqual([{ field: 'stayIndex', message: 'must be a whole number, 0 or more' }]);
    expect((await client.api('/v1/reservations/res-unpaid')).body.money.invoiceItems).toHaveLength(before);
  });

  it("refuses a secondIdentifier outside the reference's values on both endpoints, and none on the deprecated one", async () => {
    const before = (await client.api('/v1/reservations/res-unpaid')).body.money.invoiceItems.length;
    for (const answer of [
      await current('res-unpaid', { title: 'Towels', amount: 8, normalType: 'AFE', secondIdentifier: 'TOWELS_EXTRA' }),
      await deprecated('res-unpaid', { title: 'Towels', amount: 8, normalType: 'AFE', secondIdentifier: 'TOWELS_EXTRA' }),
    ]) {
      expect(answer.status).toBe(400);
      expect(answer.body.details).toEqual([
        { field: 'secondIdentifier', message: expect.stringContaining('must be one of ADDITIONAL_BED') },
      ]);
    }
    const missing = await deprecated('res-unpaid', { title: 'Cleaning', amount: 25, normalType: 'CF' });
    expect(missing.status).toBe(400);
    expect(missing.body.details).toEqual([{ field: 'secondIdentifier', message: 'is required' }]);
    expect((await client.api('/v1/reservations/res-unpaid')).body.money.invoiceItems).toHaveLength(before);
  });

  it('answers 404 for an unknown reservation and 400 for malformed JSON', async () => {
    expect((await current('res-nowhere', { title: 'x', amount: 1, normalType: 'CF' })).status).toBe(404);
    expect((await deprecated('res-nowhere', { title: 'x', amount: 1, normalType: 'AFE', secondIdentifier: 'PET' })).status).toBe(404);
    const token = await client.mintToken();
    const malformed = await fetch(`${client.urls.apiUrl}/v1/invoice-items/reservation/res-unpaid`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: '{"title": ',
    });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { message: string }).message).toEqual(expect.any(String));
    const wrongType = await fetch(`${client.urls.apiUrl}/v1/invoice-items/reservation/res-unpaid`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'text/plain' },
      body: '{}',
    });
    expect(wrongType.status).toBe(400);
  });
});
