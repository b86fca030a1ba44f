import { Clock } from '../primitives/clock';
import { journalWorld, unitModule } from '../../test/utils/unit-kit';
import { KeyValueStore } from '../redis/key-value-store';
import { MemoryKeyValueStore } from '../redis/memory-key-value-store';
import { RedisKeys } from '../redis/redis-keys';
import { CheckoutSession } from './checkout-session';
import { CheckoutSessionsStore } from './checkout-sessions.store';

class FixedClock extends Clock {
  now(): number {
    return 1_700_000_000_000;
  }
}

/** The keys of the version before the hash tag: a session under its ref alone. */
class UntaggedKeys extends RedisKeys {
  override checkoutSession(ref: string): string {
    return this.untaggedCheckoutSession(ref);
  }
}

async function setUp(store = new MemoryKeyValueStore(() => new FixedClock().now()), keys = new RedisKeys('t:')) {
  const clock = new FixedClock();
  const module = await unitModule(
    journalWorld(),
    [CheckoutSessionsStore],
    [
      [KeyValueStore, store],
      [RedisKeys, keys],
      [Clock, clock],
    ],
  );
  const sessions = module.get(CheckoutSessionsStore);
  const fresh = (): Omit<CheckoutSession, 'version'> => ({
    id: sessions.newId(),
    status: 'requires_payment_method',
    reservationId: 'res-1',
    listingId: 'lst-1',
    guestId: 'guest-1',
    paymentProviderId: 'pp-1',
    amount: 100,
    currency: 'USD',
    createdAt: clock.now(),
    expiresAt: clock.now() + 3_600_000,
  });
  const key = (id: string) => new RedisKeys('t:').checkoutSession(RedisKeys.sessionRef(id));
  return { sessions, fresh, store, key };
}

describe('CheckoutSessionsStore: fenced session state (docs/product-spec.md §6.4)', () => {
  it('writes every change over the version it read, one version up', async () => {
    const { sessions, fresh } = await setUp();
    const created = await sessions.create(fresh());
    expect(created.version).toBe(1);
    const failed = await sessions.update(created.id, (current) => ({ ...current, status: 'failed' }));
    expect(failed).toMatchObject({ status: 'failed', version: 2 });
    expect(await sessions.load(created.id)).toMatchObject({ status: 'failed', version: 2 });
  });

  it('re-applies a change to what another writer wrote meanwhile, never over it', async () => {
    const { sessions, fresh, store, key } = await setUp();
    const created = await sessions.create(fresh());
    const seen: number[] = [];
    const result = await sessions.update(created.id, (current) => {
      seen.push(current.version);
      if (seen.length === 1) {
        // Another replica writes between this writer's read and its write.
        const other = { ...current, version: current.version + 1, lastError: { code: 'card_declined', message: 'declined' } };
        void store.set(key(created.id), JSON.stringify(other), { ttlMs: 60_000 });
      }
      return { ...current, status: 'requires_action' };
    });
    expect(seen).toEqual([1, 2]);
    expect(result).toMatchObject({ status: 'requires_action', version: 3, lastError: { code: 'card_declined' } });
  });

  it('records an outcome with what its request stores beside it in one step, and without it over a version that moved', async () => {
    const { sessions, fresh, store, key } = await setUp();
    const created = await sessions.create(fresh());
    const answerKey = `${key(created.id)}:answer`;
    const batches: number[] = [];
    const batch = store.batch.bind(store);
    store.batch = (steps) => {
      batches.push(steps.length);
      return batch(steps);
    };
    let written = 0;
    const beside = {
      steps: (session: CheckoutSession) => [{ op: 'set' as const, key: answerKey, value: `answered ${session.status}`, ttlMs: 60_000 }],
      written: () => (written += 1),
    };
    const paid = await sessions.recordOutcome(created.id, (current) => ({ ...current, status: 'succeeded' }), created, beside);
    expect(paid).toMatchObject({ status: 'succeeded', version: 2 });
    expect(batches).toEqual([2]);
    expect(written).toBe(1);
    await expect(store.get(answerKey)).resolves.toBe('answered succeeded');
    // The caller's copy is a version behind: the change is applied to what is stored, and nothing is written beside it.
    await store.delete(answerKey);
    const again = await sessions.recordOutcome(created.id, (current) => ({ ...current, amount: 90 }), created, beside);
    expect(again).toMatchObject({ status: 'succeeded', amount: 90, version: 3 });
    expect(written).toBe(1);
    await expect(store.get(answerKey)).resolves.toBeNull();
  });

  it('never lets succeeded go back', async () => {
    const { sessions, fresh } = await setUp();
    const created = await sessions.create(fresh());
    await sessions.update(created.id, (current) => ({ ...current, status: 'succeeded' }));
    await expect(sessions.update(created.id, (current) => ({ ...current, status: 'failed' }))).rejects.toThrow('never goes back');
    expect(await sessions.load(created.id)).toMatchObject({ status: 'succeeded' });
  });

  it("writes a new session as a step of the caller's batch, never over a session of the same id", async () => {
    const { sessions, fresh, store, key } = await setUp();
    const session = fresh();
    const first = sessions.createStep(session);
    expect(first.written((await store.batch([first.step]))[0])).toMatchObject({ id: session.id, version: 1 });
    expect(await sessions.load(session.id)).toMatchObject({ id: session.id, status: 'requires_payment_method', version: 1 });
    const stored = await store.get(key(session.id));
    const again = sessions.createStep({ ...session, amount: 1 });
    const [taken] = await store.batch([again.step]);
    expect(() => again.written(taken)).toThrow('already taken');
    expect(() => again.written(null)).toThrow('did not run');
    expect(await store.get(key(session.id))).toBe(stored);
  });

  it('answers 404 for a session that is gone, and writes nothing', async () => {
    const { sessions } = await setUp();
    await expect(sessions.update(`cs_${'a'.repeat(32)}`, (current) => current)).rejects.toMatchObject({ code: 'session_not_found' });
  });
});

describe('CheckoutSessionsStore: the id at rest (docs/product-spec.md §7)', () => {
  it('keeps the session under its ref without its id, and answers it by the id or by the ref', async () => {
    const { sessions, fresh, store, key } = await setUp();
    const created = await sessions.create(fresh());
    const stored = (await store.get(key(created.id)))!;
    expect(stored).not.toContain(created.id);
    expect(await sessions.load(created.id)).toEqual(created);
    expect(await sessions.loadByRef(RedisKeys.sessionRef(created.id))).toEqual(created);
    expect(await sessions.load(RedisKeys.sessionRef(created.id))).toBeNull();
  });

  it('does not open a record copied under another session’s ref', async () => {
    const { sessions, fresh, store, key } = await setUp();
    const a = await sessions.create(fresh());
    const b = fresh();
    await store.set(key(b.id), (await store.get(key(a.id)))!, { ttlMs: 60_000 });
    expect(await sessions.loadByRef(RedisKeys.sessionRef(b.id))).toBeNull();
  });

  it('moves a session written under its raw id before the ref to its ref on first use, once', async () => {
    const { sessions, fresh, store, key } = await setUp();
    const legacy = { ...fresh(), version: 4 };
    const legacyKey = new RedisKeys('t:').legacyCheckoutSession(legacy.id);
    await store.set(legacyKey, JSON.stringify(legacy), { ttlMs: 3_600_000 });
    expect(await sessions.load(legacy.id)).toEqual(legacy);
    expect(await store.get(legacyKey)).toBeNull();
    expect(await store.get(key(legacy.id))).not.toContain(legacy.id);
    expect(await store.ttlMs(key(legacy.id))).toBe(3_600_000);
    expect(await sessions.update(legacy.id, (current) => ({ ...current, status: 'failed' }))).toMatchObject({
      status: 'failed',
      version: 5,
    });
  });

  it('moves a session written under its ref before the hash tag to its key on first use, by its id or its ref', async () => {
    const { store, key } = await setUp();
    const before = await setUp(store, new UntaggedKeys('t:'));
    const untaggedKey = (id: string) => new RedisKeys('t:').untaggedCheckoutSession(RedisKeys.sessionRef(id));
    const { sessions } = await setUp(store);
    for (const byRef of [false, true]) {
      const written = await before.sessions.create(before.fresh());
      const moved = byRef ? await sessions.loadByRef(RedisKeys.sessionRef(written.id)) : await sessions.load(written.id);
      expect(moved).toEqual(written);
      expect(await store.get(untaggedKey(written.id))).toBeNull();
      expect(await store.get(key(written.id))).not.toContain(written.id);
      expect(await sessions.update(written.id, (current) => ({ ...current, status: 'failed' }))).toMatchObject({ version: 2 });
    }
  });
});
