import { journalWorld, quietLogs } from '../../test/utils/unit-kit';
import { BatchStep } from '../redis/key-value-store';
import { RedisKeys } from '../redis/redis-keys';
import { GuestyClient } from '../upstream/guesty-client';
import { PaymentMethodOnFile } from '../upstream/platform-results';
import { IntentContext, onReservation } from '../journal/write-intent';
import { dueMember, intentIdOf } from '../journal/write-journal';

const RESERVATION = 'res-1';
const TARGET = onReservation(RESERVATION);
const GUEST = 'guest-1';

beforeAll(quietLogs);

/**
 * An attach whose writer died after sending it (its answer lost), left `sending` for the sweep, the
 * platform showing the card, and payment-status holding the "no card" it served before the attach.
 */
async function lostAttach(context: IntentContext) {
  const methods: PaymentMethodOnFile[] = [
    { id: 'pm_1', guestId: GUEST, reservationId: RESERVATION, paymentProviderId: 'pp-1', last4: '4242' },
  ];
  const guesty = { listPaymentMethods: () => Promise.resolve(methods) } as Partial<GuestyClient> as GuestyClient;
  const world = journalWorld({}, { guesty });
  const { store, keys, clock } = world;
  const intentId = intentIdOf('payment-method', 'key-1');
  const writes = keys.reservationWrites(RESERVATION);
  const intent = {
    id: intentId,
    kind: 'payment-method',
    target: TARGET,
    state: 'sending',
    request: { guestId: GUEST, tokenId: 'tok_1', paymentProviderId: 'pp-1', last4: '4242' },
    snapshot: [],
    context,
    sentAt: clock.now(),
    updatedAt: clock.now(),
  };
  await store.set(writes.intent(intentId), JSON.stringify(intent));
  await store.set(writes.openIntent, intentId);
  await store.indexAdd(keys.journal().due, dueMember(TARGET, intentId), clock.now());
  const answer = keys.paymentStatus(RESERVATION).answer;
  await store.set(answer, JSON.stringify({ state: 'missing', diagnosis: { code: 'not_attached' } }), { ttlMs: 10_000 });
  const batches: BatchStep[][] = [];
  const batch = store.batch.bind(store);
  store.batch = (steps) => {
    batches.push(steps);
    return batch(steps);
  };
  /** The step that recorded the intent landed. */
  const landedStep = () =>
    batches.find((steps) =>
      steps.some((step) => step.op === 'set' && step.key === writes.intent(intentId) && step.value.includes('"landed"')),
    );
  return { world, intentId, answer, landedStep, card: writes.card };
}

describe('PaymentMethodWrite: what a landed attach writes beside its outcome', () => {
  it('the sweep settles an attach its request lost: one step records it landed, puts the card on file and drops the cached payment status', async () => {
    const sessionRef = RedisKeys.sessionRef('cs_1');
    const { world, intentId, answer, landedStep, card } = await lostAttach({ sessionRef, attemptId: 'a-1' });
    await expect(world.journal.reconcileDue(TARGET, intentId)).resolves.toBe('landed');
    expect(landedStep()).toEqual(
      expect.arrayContaining([
        { op: 'set', key: card, value: JSON.stringify({ paymentMethodId: 'pm_1', sessionRef, last4: '4242' }), ttlMs: expect.any(Number) },
        { op: 'delete', key: answer },
      ]),
    );
    expect(await world.store.get(answer)).toBeNull();
    expect(await world.cardsOnFile.onFile(RESERVATION)).toEqual({ paymentMethodId: 'pm_1', sessionRef, last4: '4242' });
  });

  it('an attach naming no session: no card on file is written for it, and the cached payment status is still dropped', async () => {
    const { world, intentId, answer, landedStep, card } = await lostAttach({});
    await expect(world.journal.reconcileDue(TARGET, intentId)).resolves.toBe('landed');
    expect(landedStep()).toContainEqual({ op: 'delete', key: answer });
    expect(landedStep()!.some((step) => step.key === card)).toBe(false);
    expect(await world.store.get(answer)).toBeNull();
    expect(await world.cardsOnFile.onFile(RESERVATION)).toBeNull();
  });
});
