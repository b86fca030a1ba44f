import { journalWorld, newSessionOf, unitModule } from '../../test/utils/unit-kit';
import { CheckoutSessionsStore } from './checkout-sessions.store';
import { SessionMoveRefused } from './session-moves';
import { NewSession, SessionState } from './session-state';

async function setUp() {
  const world = journalWorld();
  const sessionState = (await unitModule(world, [SessionState, CheckoutSessionsStore])).get(SessionState);
  const fresh = (): NewSession => newSessionOf(sessionState, world.clock, { reservationId: 'res-1', amount: 100 });
  return { world, sessionState, fresh };
}

describe('SessionState: the one owner of checkout session state', () => {
  it('opens a session waiting for a card, and moves it one version up', async () => {
    const { sessionState, fresh } = await setUp();
    const opened = await sessionState.open(fresh());
    expect(opened).toMatchObject({ status: 'requires_payment_method', version: 1 });
    const failed = await sessionState.move(opened.id, { move: 'failed', error: { code: 'card_declined', message: 'declined' } });
    expect(failed).toMatchObject({ status: 'failed', version: 2, lastError: { code: 'card_declined' } });
  });

  it('refuses a move the table does not allow and writes nothing', async () => {
    const { sessionState, fresh, world } = await setUp();
    const opened = await sessionState.open(fresh());
    const attached = await sessionState.move(opened.id, {
      move: 'attached',
      method: { id: 'pm_1', last4: '4242' },
      tokenizedUnder: 'pp-1',
    });
    const written = await world.store.get(world.keys.checkoutSession(opened.id));
    await expect(
      sessionState.move(opened.id, {
        move: 'authenticationRequired',
        attempt: { id: 'a', tokenId: 't', paymentProviderId: 'pp-1', last4: '4242' },
        redirectUrl: 'https://issuer.example/3ds',
      }),
    ).rejects.toThrow(SessionMoveRefused);
    expect(await world.store.get(world.keys.checkoutSession(opened.id))).toBe(written);
    expect(await sessionState.require(opened.id)).toEqual(attached);
  });

  it('writes nothing for a move that changes nothing', async () => {
    const { sessionState, fresh } = await setUp();
    const opened = await sessionState.open(fresh());
    await expect(sessionState.move(opened.id, { move: 'notAttached' })).resolves.toMatchObject({ version: 1 });
  });

  it('opens a booking only as held, never as already confirmed or ended', async () => {
    const { sessionState, fresh, world } = await setUp();
    const booking = { reservationId: 'res-1', confirmationCode: 'GY-1', checkIn: '2026-12-01', checkOut: '2026-12-04' };
    const session = { ...fresh(), booking: { ...booking, status: 'confirmed' as const } };
    await expect(sessionState.open(session)).rejects.toThrow(SessionMoveRefused);
    expect(() => sessionState.openStep(session)).toThrow(SessionMoveRefused);
    expect(await world.store.get(world.keys.checkoutSession(session.id))).toBeNull();
    await expect(sessionState.open({ ...fresh(), booking: { ...booking, status: 'reserved' } })).resolves.toMatchObject({
      booking: { status: 'reserved' },
    });
  });
});
