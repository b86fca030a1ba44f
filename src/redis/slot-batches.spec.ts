import { MemoryKeyValueStore } from './memory-key-value-store';
import { SlotAnswer, SlotRequest } from './key-value-store';
import { SlotBatches } from './slot-batches';

/** A store whose takeEachSlot calls wait until the test lets them answer (or fail). */
class HeldStore extends MemoryKeyValueStore {
  readonly calls: { requests: SlotRequest[]; answer: () => void; fail: (error: Error) => void }[] = [];

  override takeEachSlot(requests: SlotRequest[]): Promise<SlotAnswer[]> {
    return new Promise((resolve, reject) => {
      this.calls.push({
        requests,
        answer: () => resolve(super.takeEachSlot(requests)),
        fail: reject,
      });
    });
  }
}

const read = (network: string, member: string, limit = 2): SlotRequest => ({
  windowKeys: [`{${network}}:w`],
  pauseKey: `{${network}}:pause`,
  windows: [{ limit, windowMs: 60_000, reserve: 0 }],
  member,
});

/** Lets the batches' own promise callbacks run (they hand the next batch over once one answers). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('SlotBatches (reads counted together)', () => {
  it('sends a take at once when none is on its way, and those made meanwhile together in one command, each decided on its own', async () => {
    const store = new HeldStore();
    const batches = new SlotBatches(store);
    const first = batches.take(read('a', 'a1'));
    expect(store.calls).toHaveLength(1);
    const rest = [read('a', 'a2'), read('a', 'a3'), read('b', 'b1')].map((request) => batches.take(request));
    expect(store.calls).toHaveLength(1);
    store.calls[0].answer();
    await expect(first).resolves.toEqual({ granted: true, retryAfterMs: 0, left: 1 });
    await settle();
    expect(store.calls).toHaveLength(2);
    expect(store.calls[1].requests.map((request) => request.member)).toEqual(['a2', 'a3', 'b1']);
    store.calls[1].answer();
    const answers = await Promise.all(rest);
    // Network a's limit is 2: its third read is refused; b's first is not held up by it.
    expect(answers.map((answer) => answer.granted)).toEqual([true, false, true]);
    await settle();
    expect(store.calls).toHaveLength(2);
  });

  it('fails only the takes of the command that failed; the next command goes out', async () => {
    const store = new HeldStore();
    const batches = new SlotBatches(store);
    const first = batches.take(read('a', 'a1'));
    const waiting = batches.take(read('a', 'a2'));
    store.calls[0].fail(new Error('Redis is down'));
    await expect(first).rejects.toThrow('Redis is down');
    await settle();
    store.calls[1].answer();
    await expect(waiting).resolves.toMatchObject({ granted: true });
  });

  it('sends a burst larger than one command in several, one after another', async () => {
    const store = new HeldStore();
    const batches = new SlotBatches(store);
    const takes = Array.from({ length: 451 }, (_, index) => batches.take(read(`n${index}`, `m${index}`)));
    for (const size of [1, 200, 200, 50]) {
      expect(store.calls.at(-1)?.requests).toHaveLength(size);
      store.calls.at(-1)?.answer();
      await settle();
    }
    expect(store.calls).toHaveLength(4);
    expect((await Promise.all(takes)).every((answer) => answer.granted)).toBe(true);
  });
});
