import { randomUUID } from 'node:crypto';
import { RedisKeys } from '../redis/redis-keys';
import { journalWorld, newSessionOf, quietLogs, unitModule } from '../../test/utils/unit-kit';
import { IdempotencyService } from '../common/idempotency/idempotency.service';
import { ProductEventBus } from '../common/events/product-event-bus';
import { InvoiceItemRequest } from '../upstream/platform-results';
import { InvoiceItemsService } from '../invoices/invoice-items.service';
import { SessionMove } from '../sessions/session-moves';
import { SessionState } from '../sessions/session-state';
import { SESSION_PROVIDERS } from '../sessions/sessions.module';
import { ExtrasService } from './extras.service';

const RESERVATION = 'res-1';
const KEY = randomUUID();

beforeAll(quietLogs);

async function setUp() {
  const world = journalWorld({
    CHECKOUT_EXTRAS: JSON.stringify([{ code: 'late-checkout', normalType: 'CF', title: 'Late checkout', amount: 40 }]),
  });
  /** The lines the platform holds, as the fake invoice-items room added them. */
  const lines: InvoiceItemRequest[] = [];
  const invoiceItems: Pick<InvoiceItemsService, 'addAll'> = {
    addAll: (_reservationId, items) => {
      lines.push(...items);
      return Promise.resolve(items.map((item, index) => ({ ...item, _id: `ii_${lines.length - items.length + index + 1}` })));
    },
  };
  const events: Pick<ProductEventBus, 'publish'> = { publish: () => Promise.resolve() };
  const module = await unitModule(
    world,
    [ExtrasService, ...SESSION_PROVIDERS, IdempotencyService],
    [
      [InvoiceItemsService, invoiceItems],
      [ProductEventBus, events],
    ],
  );
  const sessions = module.get(SessionState);
  /** A session opened and moved as the product moves it. */
  const newSession = async (...moves: SessionMove[]) => {
    let session = await sessions.open(newSessionOf(sessions, world.clock, { reservationId: RESERVATION }));
    for (const move of moves) session = await sessions.move(session.id, move);
    return session;
  };
  const extras = module.get(ExtrasService);
  const press = (sessionId: string, key: string) => extras.add(sessionId, { items: [{ code: 'late-checkout' }] }, key);
  return { lines, sessions, newSession, press, cards: world.cardsOnFile };
}

describe('Extras (a press with its Idempotency-Key)', () => {
  it('after the card landed, while the session record still says processing, a press adds the line and its duplicate gets the same answer', async () => {
    const world = await setUp();
    // The card's reconciliation put it on file, and the replica recording it on the session froze.
    const session = await world.newSession({ move: 'outcomePending' });
    await world.cards.record(RESERVATION, { paymentMethodId: 'pm_1', sessionRef: RedisKeys.sessionRef(session.id) });
    const first = await world.press(session.id, KEY);
    const duplicate = await world.press(session.id, KEY);
    expect(first).toEqual({ items: [expect.objectContaining({ code: 'late-checkout', amount: 40, invoiceItemId: 'ii_1' })] });
    expect(duplicate).toEqual(first);
    expect(world.lines).toHaveLength(1);
  });

  it('while the card is still being confirmed, a press answers outcome_pending with Retry-After, then the same key adds the line once', async () => {
    const world = await setUp();
    const session = await world.newSession({ move: 'outcomePending' });
    await expect(world.press(session.id, KEY)).rejects.toMatchObject({ code: 'outcome_pending', status: 503, retryAfterSeconds: 2 });
    expect(world.lines).toHaveLength(0);
    await world.cards.record(RESERVATION, { paymentMethodId: 'pm_1', sessionRef: RedisKeys.sessionRef(session.id) });
    const added = await world.press(session.id, KEY);
    expect(await world.press(session.id, KEY)).toEqual(added);
    expect(world.lines).toHaveLength(1);
  });

  it('a session without a card is refused (409 invalid_state) however often it is pressed, and nothing is added', async () => {
    const world = await setUp();
    const session = await world.newSession();
    for (let press = 0; press < 2; press += 1) {
      await expect(world.press(session.id, KEY)).rejects.toMatchObject({ code: 'invalid_state', status: 409 });
    }
    // Another session's card on the reservation is not this session's.
    await world.cards.record(RESERVATION, { paymentMethodId: 'pm_9', sessionRef: RedisKeys.sessionRef('another-session') });
    await expect(world.press(session.id, KEY)).rejects.toMatchObject({ code: 'invalid_state', status: 409 });
    expect(world.lines).toHaveLength(0);
  });
});
