import { SteppingClock, unitConfig } from '../../test/utils/unit-kit';
import { DomainError } from '../common/errors/domain-error';
import { AccessTokens } from './access-tokens';
import { GuestyClient } from './guesty-client';
import { OutboundRateLimiter } from './outbound-rate-limiter';
import { UpstreamError } from './upstream-error';
import { UnexpectedAnswers } from './unexpected-answers';
import { UpstreamHttp } from './upstream-http';

/** A client over `http` and `limiter` as the unit's stand-ins, with a token always at hand. */
function unitClient(http: unknown, limiter: unknown): GuestyClient {
  const tokens = { current: () => Promise.resolve({ value: 'unit-token' }), rejected: () => Promise.resolve(null) };
  return new GuestyClient(
    http as UpstreamHttp,
    tokens as unknown as AccessTokens,
    limiter as OutboundRateLimiter,
    unitConfig().service,
    new SteppingClock(),
    {} as UnexpectedAnswers,
  );
}

/** A client whose budget refuses every slot, as the limiter does when no slot frees before the deadline. */
function refusedByTheBudget() {
  const sent: string[] = [];
  const http = { send: (call: { operation: string }) => Promise.reject(new Error(`sent ${sent.push(call.operation)}`)) };
  const refusal = new DomainError('rate_limited', 'The booking platform is busy; try again shortly.', {
    status: 503,
    retryAfterSeconds: 7,
  });
  const limiter = { acquire: () => Promise.reject(refusal), expired: () => false, pauseAll: () => Promise.resolve() };
  return { client: unitClient(http, limiter), sent };
}

describe('GuestyClient: a request the outbound budget refused', () => {
  it('is a write that surely never left, so the journal keeps nothing of it (docs/product-spec.md §6)', async () => {
    const { client, sent } = refusedByTheBudget();
    const refused = await client
      .createGuest({ firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' }, 'anonymous')
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(UpstreamError);
    expect(refused).toMatchObject({ code: 'rate_limited', status: 503, retryAfterSeconds: 7, maybeSent: false, operation: 'createGuest' });
    expect(sent).toEqual([]);
  });
});

describe("GuestyClient: a booking's reservation with its cards", () => {
  it('reads the cards beside the reservation when the caller knows its guest: one platform wait, not two', async () => {
    const sent: string[] = [];
    const answers: (() => void)[] = [];
    const bodies: Record<string, unknown> = {
      getReservationsV3: { results: [{ _id: 'res-1', status: 'reserved', confirmationCode: 'GY-1', bookerId: 'guest-1' }] },
      listPaymentMethods: [{ _id: 'pm_1', reservationId: 'res-1', status: 'ACTIVE' }],
    };
    const http = {
      send: (call: { operation: string }) =>
        new Promise((resolve) => {
          sent.push(call.operation);
          answers.push(() => resolve({ status: 200, data: bodies[call.operation], headers: {} }));
        }),
    };
    const limiter = { acquire: () => Promise.resolve({}), expired: () => false, pauseAll: () => Promise.resolve() };
    const client = unitClient(http, limiter);
    const reading = client.getReservation('res-1', 'checkout', ['cards'], { guestId: 'guest-1', confirmationCode: 'GY-1' });
    for (let turn = 0; turn < 50 && sent.length < 2; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    // Both asked for before either answered.
    expect([...sent].sort()).toEqual(['getReservationsV3', 'listPaymentMethods']);
    answers.forEach((answer) => answer());
    await expect(reading).resolves.toMatchObject({ cardsOnFile: ['pm_1'] });
  });
});
