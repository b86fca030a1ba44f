import { cardBody, checkoutClient, freshReservation, upstreamRequests } from '../utils/checkout-client';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';
import { expectOneMessageFor } from '../utils/field-errors';
import { keysAdded } from '../utils/keys-added';

const year = new Date().getUTCFullYear();
const AMEX = '378282246310005';

const CASES: { name: string; body: unknown; field: string }[] = [
  { name: 'a number failing the Luhn check', body: cardBody('4242424242424241'), field: 'card.number' },
  { name: 'a number with letters', body: cardBody('4242abcd42424242'), field: 'card.number' },
  { name: 'a number too short', body: cardBody('424242424242'), field: 'card.number' },
  { name: 'a number sent as a JSON number', body: cardBody(4242424242424242 as unknown as string), field: 'card.number' },
  { name: 'a one-digit month', body: cardBody(undefined, { card: { exp_month: '1' } }), field: 'card.exp_month' },
  { name: 'month 13', body: cardBody(undefined, { card: { exp_month: '13' } }), field: 'card.exp_month' },
  { name: 'a two-digit year', body: cardBody(undefined, { card: { exp_year: '30' } }), field: 'card.exp_year' },
  { name: 'an expired year', body: cardBody(undefined, { card: { exp_year: String(year - 1) } }), field: 'card.exp_year' },
  { name: 'a two-digit CVC', body: cardBody(undefined, { card: { cvc: '12' } }), field: 'card.cvc' },
  { name: 'a four-digit CVC on a Visa card', body: cardBody(undefined, { card: { cvc: '1234' } }), field: 'card.cvc' },
  { name: 'a three-digit CVC on an American Express card', body: cardBody(AMEX, { card: { cvc: '123' } }), field: 'card.cvc' },
  { name: 'a number typed with spaces that fails the Luhn check', body: cardBody('4242 4242 4242 4241'), field: 'card.number' },
  { name: 'an empty cardholder name', body: cardBody(undefined, { billing: { name: '' } }), field: 'billing_details.name' },
  {
    name: 'line1 over 50 characters',
    body: cardBody(undefined, { address: { line1: 'x'.repeat(51) } }),
    field: 'billing_details.address.line1',
  },
  {
    name: 'city over 50 characters',
    body: cardBody(undefined, { address: { city: 'x'.repeat(51) } }),
    field: 'billing_details.address.city',
  },
  {
    name: 'postal code over 20 characters',
    body: cardBody(undefined, { address: { postal_code: '1'.repeat(21) } }),
    field: 'billing_details.address.postal_code',
  },
  { name: 'a three-letter country', body: cardBody(undefined, { address: { country: 'USA' } }), field: 'billing_details.address.country' },
  { name: 'an unknown country code', body: cardBody(undefined, { address: { country: 'XX' } }), field: 'billing_details.address.country' },
  { name: 'an unknown card field', body: cardBody(undefined, { card: { pin: '0000' } }), field: 'card.pin' },
  { name: 'an unknown top-level field', body: { ...cardBody(), amount: 1 }, field: 'amount' },
  { name: 'a card without billing details', body: { card: cardBody().card }, field: 'billing_details' },
  { name: 'a token and a card together', body: { ...cardBody(), token: 'tok_1' }, field: 'token' },
  { name: 'an empty body', body: {}, field: 'card' },
  { name: 'a null token', body: { token: null }, field: 'token' },
  { name: 'a null card', body: { card: null, billing_details: cardBody().billing_details }, field: 'card' },
  { name: 'null billing details', body: { card: cardBody().card, billing_details: null }, field: 'billing_details' },
  { name: 'a null address', body: cardBody(undefined, { billing: { address: null } }), field: 'billing_details.address' },
  { name: 'a null card number', body: cardBody(null as unknown as string), field: 'card.number' },
  { name: 'a card that is a list', body: { card: [cardBody().card], billing_details: cardBody().billing_details }, field: 'card' },
  {
    name: 'a card nested deeper than the contract',
    body: { card: { ...cardBody().card, number: { number: { number: '4242424242424242' } } }, billing_details: cardBody().billing_details },
    field: 'card.number',
  },
];

/** A body of about 30 KiB nested a few thousand levels deep: parsed, it must never reach the validator's recursion. */
function deeplyNested(levels: number): string {
  return `{"card":${'{"a":'.repeat(levels)}1${'}'.repeat(levels)},"billing_details":{}}`;
}

describe('card submission validation: clear field errors, nothing sent upstream, nothing changed', () => {
  let world: SandboxedApps;
  let sessionId: string;
  let sessionBefore: unknown;

  beforeAll(async () => {
    world = await startSandboxedApps(1);
    const reservation = freshReservation(world);
    const site = checkoutClient(world.apps[0].url);
    sessionId = (await site.createSession(reservation.reservationId, reservation.guestEmail).expect(201)).body.id as string;
    sessionBefore = (await site.getSession(sessionId)).body;
  });

  afterAll(() => world.close());

  it.each(CASES)('refuses $name', async ({ body, field }) => {
    const site = checkoutClient(world.apps[0].url);
    const before = upstreamRequests(world);
    const keysBefore = (await world.apps[0].redisKeys()).sort();
    const res = await site.submit(sessionId, body);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.code).toBe('validation_failed');
    expectOneMessageFor(res.body.errors, field);
    expect(JSON.stringify(res.body)).not.toMatch(/4242424242424241|4242abcd|0000/);
    expect(upstreamRequests(world)).toBe(before);
    expect(keysAdded(keysBefore, await world.apps[0].redisKeys())).toEqual([]);
    expect((await site.getSession(sessionId)).body).toEqual(sessionBefore);
  });

  it('refuses a body nested thousands deep with 400, not a 500 with a stack', async () => {
    const before = upstreamRequests(world);
    const keysBefore = (await world.apps[0].redisKeys()).sort();
    const body = deeplyNested(5_000);
    expect(body.length).toBeLessThan(32 * 1024);
    const res = await checkoutClient(world.apps[0].url).submit(sessionId, body).set('Content-Type', 'application/json');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(upstreamRequests(world)).toBe(before);
    expect(keysAdded(keysBefore, await world.apps[0].redisKeys())).toEqual([]);
    expect(world.apps[0].logs.entries().filter((entry) => entry.level === 'error' || entry.level === 'fatal')).toEqual([]);
  });

  it('refuses a form-encoded body on a JSON route with 415', async () => {
    const res = await checkoutClient(world.apps[0].url)
      .submit(sessionId, 'card=1')
      .set('Content-Type', 'application/x-www-form-urlencoded');
    expect(res.status).toBe(415);
    expect(res.body.code).toBe('unsupported_media_type');
  });
});

describe('card rules a guest meets: American Express codes and numbers typed in groups', () => {
  let world: SandboxedApps;

  beforeAll(async () => {
    world = await startSandboxedApps(1);
  });

  afterAll(() => world.close());

  async function newSession() {
    const reservation = freshReservation(world);
    const site = checkoutClient(world.apps[0].url);
    return { site, sessionId: (await site.createSession(reservation.reservationId, reservation.guestEmail).expect(201)).body.id as string };
  }

  it.each([
    [
      'an American Express card with its 4-digit code, typed in groups',
      cardBody('3782 822463 10005', { card: { cvc: '1234' } }),
      'amex',
      '0005',
    ],
    ['a Visa number typed with dashes', cardBody('4242-4242-4242-4242'), 'visa', '4242'],
  ])('pays with %s', async (_name, body, brand, last4) => {
    const { site, sessionId } = await newSession();
    const paid = await site.submit(sessionId, body).expect(200);
    expect(paid.body).toMatchObject({ status: 'succeeded', paymentMethod: { brand, last4 } });
  });

  // The reference writes the code as "three digits"; should the pay host refuse an American Express
  // code of four, the guest reads which field, and nothing is attached.
  it('names the code when the pay host refuses it', async () => {
    const { site, sessionId } = await newSession();
    world.sandbox.control.forceStatus('tokenize', 400, {
      times: 1,
      body: {
        code: 'VALIDATION_ERROR',
        message: 'Invalid request',
        details: [{ field: 'card.cvc', message: 'must be 3 digits, as a string' }],
      },
    });
    const before = upstreamRequests(world);
    const refused = await site.submit(sessionId, cardBody(AMEX, { card: { cvc: '1234' } })).expect(400);
    expect(refused.body).toMatchObject({ code: 'validation_failed', errors: [{ field: 'card.cvc', message: expect.any(String) }] });
    // The tokenization and the reservation's cards, read beside it for the attach; no attach.
    expect(upstreamRequests(world)).toBe(before + 2);
    expect((await site.getSession(sessionId)).body.paymentMethod).toBeUndefined();
  });
});
