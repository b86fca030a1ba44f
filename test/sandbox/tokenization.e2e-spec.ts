import { SANDBOX_TEST_CARDS } from '../../sandbox/start-sandbox';
import { startTestSandbox, tokenizeBody, type SandboxClient } from './sandbox-helpers';

describe('sandbox tokenization host (POST /api/tokenize/v2)', () => {
  let client: SandboxClient;

  beforeAll(async () => {
    client = await startTestSandbox();
  });
  afterAll(() => client.sandbox.stop());

  it('tokenizes 4242 without 3DS and records provider, listing, last4 and brand only', async () => {
    const answer = await client.tokenize(tokenizeBody({}));
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ _id: expect.any(String) });
    expect(answer.headers.get('x-request-id')).toBeTruthy();
    const token = client.control.getToken(answer.body._id);
    expect(token).toMatchObject({
      paymentProviderId: 'pp-seaside',
      listingId: 'lst-seaside',
      card: { brand: 'visa', last4: '4242', exp_month: '12', exp_year: '2099' },
      threeDS: { required: false, outcome: 'not_required' },
      used: false,
    });
    expect(JSON.stringify(token)).not.toContain('4242424242424242');
    expect(JSON.stringify(token)).not.toContain('"123"');
  });

  it('asks for 3DS with an authURL on the tokenization host for 4000 0000 0000 3220', async () => {
    const answer = await client.tokenize(tokenizeBody({ number: '4000000000003220' }));
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      _id: expect.any(String),
      threeDS: { authURL: `${client.urls.payUrl}/3ds/${answer.body._id}` },
    });
    expect(client.control.getToken(answer.body._id)?.threeDS).toMatchObject({ required: true, outcome: 'pending' });
  });

  it('declines 4000 0000 0000 0002 at tokenization', async () => {
    const answer = await client.tokenize(tokenizeBody({ number: '4000000000000002' }));
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      code: 'CARD_DECLINED',
      message: 'The card was declined',
      decline_code: 'generic_decline',
    });
  });

  it('answers 402 ERR_BAD_REQUEST with both messages for 4000 0000 0000 0119', async () => {
    const answer = await client.tokenize(tokenizeBody({ number: '4000000000000119' }));
    expect(answer.status).toBe(402);
    expect(answer.body).toEqual({
      code: 'ERR_BAD_REQUEST',
      message: 'Request contradicts clearing interface configuration',
      data: { errors: ['Request contradicts clearing interface configuration', 'Bad Bin or Host Disconnect'] },
    });
  });

  it('tokenizes the insufficient-funds card and any other Luhn-valid card', async () => {
    expect((await client.tokenize(tokenizeBody({ number: '4000000000000341' }))).status).toBe(200);
    const mastercard = await client.tokenize(tokenizeBody({ number: '5555555555554444' }));
    expect(mastercard.body).toEqual({ _id: expect.any(String) });
    expect(client.control.getToken(mastercard.body._id)?.card.brand).toBe('mastercard');
  });

  it('tokenizes an American Express card with its 4-digit security code', async () => {
    const amex = await client.tokenize(tokenizeBody({ number: '378282246310005', cvc: '1234' }));
    expect(amex.body).toEqual({ _id: expect.any(String) });
    expect(client.control.getToken(amex.body._id)?.card.brand).toBe('amex');
  });

  it('documents Luhn-valid test cards', () => {
    expect(SANDBOX_TEST_CARDS.map((card) => card.outcome)).toEqual([
      'succeeds',
      'three_ds',
      'declined',
      'account_unavailable',
      'insufficient_funds',
      'authentication_required',
    ]);
  });

  it.each([
    ['card.number', { card: { number: '4242424242424241', exp_month: '12', exp_year: '2099', cvc: '123' } }],
    ['card.number', { card: { number: '4242-4242', exp_month: '12', exp_year: '2099', cvc: '123' } }],
    ['card.exp_month', { card: { number: '4242424242424242', exp_month: '1', exp_year: '2099', cvc: '123' } }],
    ['card.exp_month', { card: { number: '4242424242424242', exp_month: '13', exp_year: '2099', cvc: '123' } }],
    ['card.exp_year', { card: { number: '4242424242424242', exp_month: '12', exp_year: '99', cvc: '123' } }],
    ['card.exp_year', { card: { number: '4242424242424242', exp_month: '01', exp_year: '2001', cvc: '123' } }],
    ['card.cvc', { card: { number: '4242424242424242', exp_month: '12', exp_year: '2099', cvc: 123 } }],
    ['card.cvc', { card: { number: '4242424242424242', exp_month: '12', exp_year: '2099', cvc: '1234' } }],
    ['card.cvc', { card: { number: '378282246310005', exp_month: '12', exp_year: '2099', cvc: '123' } }],
    ['paymentProviderId', { paymentProviderId: 'pp-nowhere' }],
    ['paymentProviderId', { paymentProviderId: 'ppdoc-seaside' }],
    ['paymentProviderId', { paymentProviderId: 'pp-closed', listingId: 'lst-closed' }],
    ['listingId', { listingId: 'lst-nowhere' }],
    ['threeDS.amount', { threeDS: { amount: '594', currency: 'USD' } }],
    ['threeDS.currency', { threeDS: { amount: 594, currency: 'DOLLARS' } }],
    ['threeDS.successURL', { threeDS: { amount: 594, currency: 'USD', successURL: 'not a url' } }],
  ])('refuses a bad %s with 400 VALIDATION_ERROR', async (field, override) => {
    const answer = await client.tokenize({ ...tokenizeBody({}), ...override });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.any(String) });
    expect(answer.body.details).toEqual(expect.arrayContaining([{ field, message: expect.any(String) }]));
    expect(answer.text).not.toContain('4242424242424242');
  });

  it.each([
    ['billing_details.name', { name: '' }],
    ['billing_details.address.line1', { line1: 'x'.repeat(51) }],
    ['billing_details.address.city', { city: 'x'.repeat(51) }],
    ['billing_details.address.postal_code', { postal_code: '1'.repeat(21) }],
    ['billing_details.address.country', { country: 'usa' }],
  ])('refuses a bad %s', async (field, change) => {
    const body = tokenizeBody({});
    if ('name' in change) body.billing_details.name = change.name;
    else Object.assign(body.billing_details.address, change);
    const answer = await client.tokenize(body);
    expect(answer.status).toBe(400);
    expect(answer.body.details).toEqual([{ field, message: expect.any(String) }]);
  });

  it('accepts the maximum lengths', async () => {
    const body = tokenizeBody({});
    Object.assign(body.billing_details.address, { line1: 'x'.repeat(50), city: 'y'.repeat(50), postal_code: '1'.repeat(20) });
    expect((await client.tokenize(body)).status).toBe(200);
  });

  it('refuses malformed JSON and a wrong content type with 400', async () => {
    const malformed = await fetch(`${client.urls.payUrl}/api/tokenize/v2`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"card":',
    });
    expect(malformed.status).toBe(400);
    const form = await fetch(`${client.urls.payUrl}/api/tokenize/v2`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'a=b',
    });
    expect(form.status).toBe(400);
  });

  it('needs no Authorization header, and counts requests that send one', async () => {
    const before = client.control.counters.tokenizeWithAuthorization;
    expect((await client.tokenize(tokenizeBody({}))).status).toBe(200);
    expect(client.control.counters.tokenizeWithAuthorization).toBe(before);
    const withAuth = await client.tokenize(tokenizeBody({}), { Authorization: 'Bearer leaked' });
    expect(withAuth.status).toBe(200);
    expect(client.control.counters.tokenizeWithAuthorization).toBe(before + 1);
  });
});
