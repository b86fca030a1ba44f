import { journalWorld, quietLogs } from '../../test/utils/unit-kit';
import { FOLLOW_UP_GRACE_MS, FollowUp, FollowUpOutcome, FollowUps } from './follow-ups';

const CONFIRM: FollowUp = { kind: 'confirm-booking', reservationId: 'res-1', sessionRef: 'ref-1' };

beforeAll(quietLogs);

/** The follow-ups of one Redis, with a handler that answers what the test lines up (and counts its calls). */
function setUp(outcomes: (FollowUpOutcome | Error)[]) {
  const world = journalWorld();
  const calls: FollowUp[] = [];
  world.followUps.handle('confirm-booking', (followUp) => {
    calls.push(followUp);
    const next = outcomes.shift() ?? 'done';
    return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
  });
  // As the card's landing step records it.
  const record = () => world.store.batch([world.followUps.step(CONFIRM)]);
  const due = () => world.store.indexDue(world.keys.followUps().due, Number.MAX_SAFE_INTEGER, 10);
  return { world, calls, record, due };
}

describe('FollowUps (writes that must follow a landed one)', () => {
  it("keeps an orphan cancel's listing and network to the sweep, and still reads a member recorded before the network was", async () => {
    const world = journalWorld();
    const handled: FollowUp[] = [];
    world.followUps.handle('cancel-orphan', (followUp) => {
      handled.push(followUp);
      return Promise.resolve('done');
    });
    const orphan: FollowUp = { kind: 'cancel-orphan', reservationId: 'res-2', sessionRef: 'ref-2', listingId: 'lst-1', network: 'net-1' };
    const earlier = JSON.stringify(['cancel-orphan', 'res-3', 'ref-3', 'lst-1']);
    await world.store.batch([world.followUps.step(orphan), { op: 'indexAdd', key: world.keys.followUps().due, member: earlier, score: 0 }]);
    world.clock.time += FOLLOW_UP_GRACE_MS;
    expect(await world.followUps.runDue(10)).toBe(2);
    expect(handled).toEqual(
      expect.arrayContaining([orphan, { kind: 'cancel-orphan', reservationId: 'res-3', sessionRef: 'ref-3', listingId: 'lst-1' }]),
    );
  });

  it('is due only after its grace: the request that caused it goes first', async () => {
    const { world, calls, record } = setUp([]);
    await record();
    expect(await world.followUps.runDue(10)).toBe(0);
    expect(calls).toEqual([]);
    world.clock.time += FOLLOW_UP_GRACE_MS;
    expect(await world.followUps.runDue(10)).toBe(1);
    expect(calls).toEqual([CONFIRM]);
  });

  it('done by its request, it is no longer due: the sweep never sends it again', async () => {
    const { world, calls, record, due } = setUp([]);
    await record();
    expect(await world.followUps.run(CONFIRM)).toBe('done');
    expect(await due()).toEqual([]);
    world.clock.time += FOLLOW_UP_GRACE_MS;
    await world.followUps.runDue(10);
    expect(calls).toHaveLength(1);
  });

  it('a try that failed (its replica died, the platform dropped it) stays due and is tried again until it lands', async () => {
    const { world, calls, record, due } = setUp([new Error('the platform answered 503'), 'retry', 'done']);
    await record();
    expect(await world.followUps.run(CONFIRM)).toBe('retry');
    world.clock.time += 60_000;
    expect(await world.followUps.runDue(10)).toBe(0);
    world.clock.time += 60_000;
    expect(await world.followUps.runDue(10)).toBe(1);
    expect(calls).toHaveLength(3);
    expect(await due()).toEqual([]);
  });

  it('waits longer as a stuck one ages, from 15 s to 15 min, and gives it up to the operator a day after it was recorded', async () => {
    const { world, calls, record } = setUp(Array.from({ length: 20 }, () => new Error('the status read failed')));
    const dueBy = (at: number) => world.store.indexDue(world.keys.followUps().due, at, 10);
    await record();
    const recordedAt = world.clock.time;
    expect(await world.followUps.run(CONFIRM)).toBe('retry');
    expect(await dueBy(recordedAt + 14_999)).toEqual([]);
    expect(await dueBy(recordedAt + 15_000)).toHaveLength(1);
    // Two hours on, a quarter of its age is past the longest wait.
    world.clock.time = recordedAt + 2 * 3_600_000;
    expect(await world.followUps.runDue(10)).toBe(0);
    expect(await dueBy(world.clock.time + 15 * 60_000 - 1)).toEqual([]);
    expect(await dueBy(world.clock.time + 15 * 60_000)).toHaveLength(1);
    world.clock.time = recordedAt + 24 * 3_600_000;
    expect(await world.followUps.runDue(10)).toBe(1);
    expect(await dueBy(Number.MAX_SAFE_INTEGER)).toEqual([]);
    expect(calls).toHaveLength(3);
    const metric = await world.metrics.registry.getSingleMetricAsString('journal_follow_ups_refused_total');
    expect(metric).toContain('journal_follow_ups_refused_total{kind="confirm-booking"} 1');
  });

  it('refused by the platform for good: no longer tried, and the operator is told by a metric', async () => {
    const { world, record, due } = setUp(['refused']);
    await record();
    expect(await world.followUps.run(CONFIRM)).toBe('refused');
    expect(await due()).toEqual([]);
    const metric = await world.metrics.registry.getSingleMetricAsString('journal_follow_ups_refused_total');
    expect(metric).toContain('journal_follow_ups_refused_total{kind="confirm-booking"} 1');
  });

  it('an entry it cannot read is dropped, never a loop', async () => {
    const { world, calls, due } = setUp([]);
    await world.store.indexAdd(world.keys.followUps().due, '["Not A Kind!","res-1","ref-1"]', 0);
    await world.store.indexAdd(world.keys.followUps().due, 'not json', 0);
    await world.followUps.runDue(10);
    expect(calls).toEqual([]);
    expect(await due()).toEqual([]);
  });

  it('a kind no room of this replica carries out stays due for one that does, tried again only after its wait', async () => {
    const { world, calls, due } = setUp([]);
    await world.store.indexAdd(world.keys.followUps().due, '["refund-deposit","res-1","ref-1"]', 0);
    expect(await world.followUps.runDue(10)).toBe(0);
    expect(await world.store.indexDue(world.keys.followUps().due, world.clock.time, 10)).toEqual([]);
    expect(calls).toEqual([]);
    expect(await due()).toEqual(['["refund-deposit","res-1","ref-1"]']);
  });

  it('finds the handler declared at its method, and refuses a second one for the same kind', () => {
    const { world } = setUp([]);
    class Refunds {
      handled: string[] = [];
      @FollowUps.carriedOutBy('refund-deposit')
      refund(followUp: FollowUp): Promise<'done'> {
        this.handled.push(followUp.reservationId);
        return Promise.resolve('done');
      }
    }
    const refunds = new Refunds();
    world.followUps.handlersOf(refunds);
    expect(() => world.followUps.handlersOf(new Refunds())).toThrow(/two handlers of the follow-up kind refund-deposit/);
    expect(() => FollowUps.carriedOutBy('Refund Deposit')).toThrow(/short lower-case name/);
    return expect(world.followUps.run({ kind: 'refund-deposit', reservationId: 'res-9', sessionRef: 'ref-9' })).resolves.toBe('done');
  });

  it('kept in the memory of the replica that recorded it: a Redis that lost the index does not lose it', async () => {
    const { world, calls, record, due } = setUp([new Error('the platform answered 503'), 'done']);
    await record();
    expect(await world.followUps.run(CONFIRM)).toBe('retry');
    // Redis comes back empty: the index is gone.
    await world.store.delete(world.keys.followUps().due);
    world.clock.time += 60_000;
    expect(await world.followUps.runDue(10)).toBe(0);
    expect(await world.followUps.runRemembered()).toBe(1);
    expect(calls).toHaveLength(2);
    expect(await due()).toEqual([]);
    // Ended: nothing is left to carry out.
    world.clock.time += 60_000;
    expect(await world.followUps.runRemembered()).toBe(0);
    expect(calls).toHaveLength(2);
  });
});
