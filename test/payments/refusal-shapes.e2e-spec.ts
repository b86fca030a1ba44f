import { CARDS, cardBody, checkoutClient, freshReservation } from '../utils/checkout-client';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';

/**
 * The attach, the payment-method list and tokenization have no published refusal body
 * (docs/upstream.md, "Refusals nothing published settles"), so the product reads their refusals by
 * status: whatever body comes, the sandbox's own, another shape, a bare message, empty or plain
 * text, the guest is told the same and nothing is attached or kept.
 */
const SHAPES: [string, unknown][] = [
  ['{message, code}', { message: 'The card was declined', code: 'CARD_DECLINED', decline_code: 'generic_decline' }],
  ['{error: {code, message}}', { error: { code: 'CARD_DECLINED', message: 'The card was declined' } }],
  ['{message}', { message: 'Bad Request' }],
  ['an empty body', ''],
  ['a plain-text body', 'Bad Request'],
];

describe('a refusal the platform publishes no body for, in any shape', () => {
  let world: SandboxedApps;

  beforeAll(async () => {
    world = await startSandboxedApps(1, { sandbox: { paymentVisibilityDelayMs: 0 } });
  });

  afterEach(() => world.sandbox.control.clearFaults());
  afterAll(() => world.close());

  const site = () => checkoutClient(world.apps[0].url);
  const requests = (route: 'paymentMethods' | 'listPaymentMethods' | 'tokenize') => world.sandbox.control.counters.requests[route] ?? 0;

  async function newSession() {
    const reservation = freshReservation(world);
    const created = await site().createSession(reservation.reservationId, reservation.guestEmail).expect(201);
    return { ...reservation, sessionId: created.body.id as string };
  }

  /** Submits a card once per shape with the route refusing it in that shape; the guest's answers, which must all be one. */
  async function refusedInEveryShape(
    route: 'paymentMethods' | 'listPaymentMethods' | 'tokenize',
    status: number,
    expected: { status: number; attaches: number },
  ) {
    const answers = new Set<string>();
    for (const [shape, body] of SHAPES) {
      const { sessionId, guestId } = await newSession();
      world.sandbox.control.forceStatus(route, status, { times: 1, body });
      const attaches = requests('paymentMethods');
      const refused = await site().submit(sessionId, cardBody(CARDS.noThreeDs));
      expect([shape, refused.status]).toEqual([shape, expected.status]);
      expect([shape, requests('paymentMethods') - attaches]).toEqual([shape, expected.attaches]);
      expect([shape, world.sandbox.control.getPaymentMethods(guestId)]).toEqual([shape, []]);
      const session = await site().getSession(sessionId).expect(200);
      expect([shape, session.body.status, session.body.lastError?.code]).toEqual([shape, 'failed', refused.body.code]);
      answers.add(JSON.stringify({ status: refused.status, code: refused.body.code, detail: refused.body.detail }));

      // The guest's next card is attached once: the refusal left nothing behind to trip it.
      const before = requests('paymentMethods');
      const paid = await site().submit(sessionId, cardBody(CARDS.noThreeDs)).expect(200);
      expect(paid.body.status).toBe('succeeded');
      expect([shape, requests('paymentMethods') - before]).toEqual([shape, 1]);
      expect(world.sandbox.control.getPaymentMethods(guestId)).toHaveLength(1);
    }
    return [...answers].map((answer) => JSON.parse(answer) as { status: number; code: string; detail: string });
  }

  it('an attach refused with a 400 tells the guest the card could not be attached, and sends it once', async () => {
    const answers = await refusedInEveryShape('paymentMethods', 400, { status: 402, attaches: 1 });
    expect(answers).toEqual([
      { status: 402, code: 'card_declined', detail: 'The card could not be attached to the reservation. Please use another card.' },
    ]);
  });

  it('a payment-method list refused with a 400 before the attach sends no attach and says to try again', async () => {
    const answers = await refusedInEveryShape('listPaymentMethods', 400, { status: 503, attaches: 0 });
    // A refused read the attach rests on is the platform answering unexpectedly, never "no card on file".
    expect(answers).toEqual([{ status: 503, code: 'platform_answer_unexpected', detail: expect.stringContaining('nothing was sent') }]);
  });

  it('a tokenization refused with a 400 is a decline, told as the sandbox’s own decline is', async () => {
    const answers = await refusedInEveryShape('tokenize', 400, { status: 402, attaches: 0 });
    const { sessionId } = await newSession();
    const declined = await site().submit(sessionId, cardBody(CARDS.declined)).expect(402);
    expect(answers).toEqual([{ status: 402, code: declined.body.code, detail: declined.body.detail }]);
    expect(declined.body.code).toBe('card_declined');
  });

  it('keeps no card number or CVC after all of it (the refusals included)', async () => {
    const contents = [...(await world.apps[0].redisContents()).values()].join('\n');
    expect(contents).not.toContain(CARDS.noThreeDs);
    expect(contents).not.toContain(CARDS.declined);
    expect(contents).not.toContain('"cvc"');
  });
});
