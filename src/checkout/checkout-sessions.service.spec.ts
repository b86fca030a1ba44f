import { journalWorld, newSessionOf, quietLogs, unitModule } from '../../test/utils/unit-kit';
import { RequestLimits } from '../common/abuse/request-limits';
import { RedisKeys } from '../redis/redis-keys';
import { AttachProgress } from '../sessions/attach-progress';
import { SessionState } from '../sessions/session-state';
import { SESSION_PROVIDERS } from '../sessions/sessions.module';
import { GuestyClient } from '../upstream/guesty-client';
import { PaymentProviders } from '../upstream/payment-providers';
import { CheckoutSessionsService } from './checkout-sessions.service';
import { KnownReservations } from './known-reservations';

const RESERVATION = 'res-1';

beforeAll(quietLogs);

/** The session the site polls, with an attach under way or not as the test says, and the card on file as the store holds it. */
async function setUp() {
  const world = journalWorld();
  const progress = { underWay: false };
  const module = await unitModule(
    world,
    [CheckoutSessionsService, ...SESSION_PROVIDERS, RequestLimits, KnownReservations],
    [
      [GuestyClient, {}],
      [PaymentProviders, {}],
      [AttachProgress, { attachUnderWay: () => Promise.resolve(progress.underWay) }],
    ],
  );
  const sessions = module.get(SessionState);
  const processing = async () => {
    const session = await sessions.open(newSessionOf(sessions, world.clock, { reservationId: RESERVATION }));
    return sessions.move(session.id, { move: 'outcomePending' });
  };
  return { world, progress, sessions, checkout: module.get(CheckoutSessionsService), processing };
}

describe('CheckoutSessions.get: what the site is told of a session left processing (a read never writes)', () => {
  it('tells a session whose attach was settled not landed, and never heard so, that the card was not added, and leaves its record', async () => {
    const { checkout, processing, sessions } = await setUp();
    const session = await processing();
    await expect(checkout.get(session.id)).resolves.toMatchObject({ status: 'failed', lastError: { code: 'not_attached' } });
    // Reported as the lost event would have moved it; the record is the next press's to write.
    await expect(sessions.require(session.id)).resolves.toMatchObject({ status: 'processing', version: session.version });
  });

  it('tells a session whose own card is on file, and never heard so, that it succeeded with that card, and leaves its record', async () => {
    const { checkout, processing, sessions, world } = await setUp();
    const session = await processing();
    await world.cardsOnFile.record(RESERVATION, {
      paymentMethodId: 'pm_1',
      sessionRef: RedisKeys.sessionRef(session.id),
      last4: '4242',
      brand: 'visa',
    });
    await expect(checkout.get(session.id)).resolves.toMatchObject({
      status: 'succeeded',
      paymentMethod: { id: 'pm_1', last4: '4242', brand: 'visa' },
    });
    await expect(sessions.require(session.id)).resolves.toMatchObject({ status: 'processing', version: session.version });
  });

  it("keeps it processing while an attach is under way on the reservation, another session's card is on file, or the record lacks its digits", async () => {
    const { checkout, processing, progress, world } = await setUp();
    const session = await processing();
    progress.underWay = true;
    await expect(checkout.get(session.id)).resolves.toMatchObject({ status: 'processing' });
    progress.underWay = false;
    await world.cardsOnFile.record(RESERVATION, { paymentMethodId: 'pm_1', sessionRef: RedisKeys.sessionRef('another-session') });
    await expect(checkout.get(session.id)).resolves.toMatchObject({ status: 'processing' });
    await world.cardsOnFile.record(RESERVATION, { paymentMethodId: 'pm_1', sessionRef: RedisKeys.sessionRef(session.id) });
    await expect(checkout.get(session.id)).resolves.toMatchObject({ status: 'processing' });
  });

  it('keeps it processing when the store cannot tell whether a card is on file', async () => {
    const { checkout, processing, world } = await setUp();
    const session = await processing();
    jest.spyOn(world.cardsOnFile, 'onFile').mockRejectedValue(new Error('Redis is down'));
    await expect(checkout.get(session.id)).resolves.toMatchObject({ status: 'processing' });
  });
});
