import { MemoryKeyValueStore } from '../../redis/memory-key-value-store';
import { SlotRequest, blockMembers } from '../../redis/key-value-store';
import { ReadsInHand } from './reads-in-hand';

const HELD_MS = 1_000;

/** A network's reads under `limit` a minute in a real slot store, on a clock the test moves. */
function world(limit: number) {
  let now = 0;
  const store = new MemoryKeyValueStore(() => now);
  const takes: number[] = [];
  let members = 0;
  const window = { windowKeys: ['{reads}:w'], pauseKey: '{reads}:pause', windows: [{ limit, windowMs: 60_000, reserve: 0 }] };
  const reads = new ReadsInHand(
    async (_network, slots, countsFromMs) => {
      takes.push(slots);
      const request: SlotRequest = { ...window, member: `m${(members += 1)}`, slots, countsFromMs };
      const answer = await store.takeSlot(request);
      return { answer, giveBack: (from) => store.releaseSlot(window.windowKeys, blockMembers(request.member, from, slots)) };
    },
    () => now,
    HELD_MS,
  );
  /** Slots the store counts now: what another replica would find taken. */
  const counted = async () => {
    const probe = await store.takeSlot({ ...window, member: 'probe', slots: 1 });
    if (probe.granted) await store.releaseSlot(window.windowKeys, 'probe');
    return probe.granted ? limit - 1 - (probe.left ?? 0) : limit;
  };
  return { reads, takes, counted, advance: (ms: number) => (now += ms) };
}

describe('ReadsInHand (a network’s reads handed out from blocks of its shared limit)', () => {
  it('takes one slot per read for a network that reads now and then: nothing is held for it', async () => {
    const { reads, takes, counted, advance } = world(120);
    for (let i = 0; i < 5; i += 1) {
      await expect(reads.spend('203.0.113.7')).resolves.toMatchObject({ granted: true });
      advance(2_000);
    }
    expect(takes).toEqual([1, 1, 1, 1, 1]);
    await expect(counted()).resolves.toBe(5);
  });

  it('takes a busy network’s reads in blocks, one store round trip for many reads, never past its limit', async () => {
    const { reads, takes, advance } = world(1_000);
    const answers = [];
    let takesToTheLimit = 0;
    for (let i = 0; i < 1_500; i += 1) {
      answers.push(await reads.spend('203.0.113.7'));
      if (answers[answers.length - 1].granted) takesToTheLimit = takes.length;
      advance(1);
    }
    const granted = answers.filter((answer) => answer.granted).length;
    expect(granted).toBeLessThanOrEqual(1_000);
    // Blocks shrink to single reads near the limit, so little of it is left unused.
    expect(granted).toBeGreaterThanOrEqual(990);
    expect(takesToTheLimit).toBeLessThan(granted / 10);
    expect(answers[answers.length - 1]).toMatchObject({ granted: false });
    expect(answers[answers.length - 1].retryAfterMs).toBeGreaterThan(50_000);
  });

  it('shares one take among reads that arrive while it is on its way', async () => {
    const { reads, takes, advance } = world(1_000);
    for (let i = 0; i < 20; i += 1) {
      await reads.spend('203.0.113.7');
      advance(1);
    }
    const before = takes.length;
    const answers = await Promise.all(Array.from({ length: 30 }, () => reads.spend('203.0.113.7')));
    expect(answers.every((answer) => answer.granted)).toBe(true);
    expect(takes.length - before).toBeLessThan(10);
  });

  it('decides a read from a block in hand, or a refusal it holds, at once; asks the store for nothing else', async () => {
    const { reads, advance } = world(1_000);
    expect(reads.spendInHand('203.0.113.7')).toBeUndefined();
    for (let i = 0; i < 20; i += 1) {
      await reads.spend('203.0.113.7');
      advance(1);
    }
    expect(reads.spendInHand('203.0.113.7')).toEqual({ granted: true, retryAfterMs: 0 });
    expect(reads.spendInHand('198.51.100.4')).toBeUndefined();

    const refusing = world(1);
    await refusing.reads.spend('203.0.113.7');
    await expect(refusing.reads.spend('203.0.113.7')).resolves.toMatchObject({ granted: false });
    const takesBefore = refusing.takes.length;
    refusing.advance(100);
    expect(refusing.reads.spendInHand('203.0.113.7')).toEqual({ granted: false, retryAfterMs: 59_900 });
    refusing.advance(HELD_MS);
    expect(refusing.reads.spendInHand('203.0.113.7')).toBeUndefined();
    expect(refusing.takes.length).toBe(takesBefore);
  });

  it('gives a block’s unused reads back when its holding time ends, so the limit counts only reads made', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask', 'setImmediate'] });
    try {
      const { reads, counted, advance } = world(1_000);
      for (let i = 0; i < 100; i += 1) {
        await reads.spend('203.0.113.7');
        advance(1);
      }
      expect(await counted()).toBeGreaterThan(100);
      advance(HELD_MS);
      jest.advanceTimersByTime(HELD_MS);
      // Settled in a later turn: nobody waits for a give-back.
      await new Promise((resolve) => setImmediate(resolve));
      await expect(counted()).resolves.toBe(100);
    } finally {
      jest.useRealTimers();
    }
  });

  it('answers the limit’s denial and its wait once not even one read fits', async () => {
    const { reads, counted } = world(2);
    await expect(reads.spend('203.0.113.7')).resolves.toMatchObject({ granted: true });
    await expect(reads.spend('203.0.113.7')).resolves.toMatchObject({ granted: true });
    const refused = await reads.spend('203.0.113.7');
    expect(refused.granted).toBe(false);
    expect(refused.retryAfterMs).toBe(60_000);
    await expect(counted()).resolves.toBe(2);
  });

  it('refuses a flood past the limit from the last refusal, not with a store round trip each, for no longer than a holding time', async () => {
    const { reads, takes, advance } = world(2);
    await reads.spend('203.0.113.7');
    await reads.spend('203.0.113.7');
    const before = takes.length;
    const answers = await Promise.all(Array.from({ length: 20 }, () => reads.spend('203.0.113.7')));
    expect(answers.every((answer) => !answer.granted && answer.retryAfterMs > 50_000)).toBe(true);
    expect(takes.length - before).toBe(1);
    advance(HELD_MS);
    await expect(reads.spend('203.0.113.7')).resolves.toMatchObject({ granted: false });
    expect(takes.length - before).toBe(2);
  });
});
