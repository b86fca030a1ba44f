import { Priority } from './outbound-rate-limiter';
import { ReadBatches } from './read-batches';

function platform(fail = false) {
  const calls: { keys: string[]; priority: Priority }[] = [];
  const batches = new ReadBatches<string | null>((keys, priority) => {
    calls.push({ keys, priority });
    if (fail) return Promise.reject(new Error('the platform answered 503'));
    return Promise.resolve(keys.map((key) => (key.startsWith('missing') ? null : `read of ${key}`)));
  }, 10);
  return { calls, batches };
}

describe('ReadBatches (reads of concurrent requests sent together)', () => {
  it('sends the reads of one priority asked for together in calls of at most 10, each answered its own', async () => {
    const { calls, batches } = platform();
    const ids = Array.from({ length: 23 }, (_, index) => `res-${index}`);
    const answers = await Promise.all(ids.map((id) => batches.load(id, 'checkout')));
    expect(answers).toEqual(ids.map((id) => `read of ${id}`));
    expect(calls.map((call) => call.keys.length)).toEqual([10, 10, 3]);
  });

  it('reads a key two requests asked for once, and keeps priorities apart', async () => {
    const { calls, batches } = platform();
    const answers = await Promise.all([
      batches.load('res-1', 'checkout'),
      batches.load('res-1', 'checkout'),
      batches.load('missing-2', 'checkout'),
      batches.load('res-3', 'anonymous'),
    ]);
    expect(answers).toEqual(['read of res-1', 'read of res-1', null, 'read of res-3']);
    expect(calls).toEqual([
      { keys: ['res-1', 'missing-2'], priority: 'checkout' },
      { keys: ['res-3'], priority: 'anonymous' },
    ]);
  });

  it('fails every read of a call that failed, and remembers nothing: the next read is sent again', async () => {
    const failing = platform(true);
    const reads = [failing.batches.load('res-1', 'checkout'), failing.batches.load('res-2', 'checkout')];
    await expect(Promise.all(reads)).rejects.toThrow('503');
    const { calls, batches } = platform();
    await batches.load('res-1', 'checkout');
    await batches.load('res-1', 'checkout');
    expect(calls).toHaveLength(2);
  });
});

describe('ReadBatches under a busy budget', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  /** A platform whose calls wait for their budget slot until the test grants it. */
  function busyPlatform() {
    const calls: { keys: string[]; grant: () => void }[] = [];
    const batches = new ReadBatches<string>((keys, _priority, granted) => {
      let grant!: () => void;
      const slot = new Promise<void>((resolve) => (grant = resolve));
      calls.push({ keys, grant });
      return slot.then(() => {
        granted?.();
        return keys.map((key) => `read of ${key}`);
      });
    }, 10);
    return { calls, batches };
  }

  it('keeps the reads asked for while a call waits for its slot, and sends them together (at most 10 a call)', async () => {
    const { calls, batches } = busyPlatform();
    const first = batches.load('res-0', 'checkout');
    await jest.advanceTimersByTimeAsync(6);
    expect(calls.map((call) => call.keys)).toEqual([['res-0']]);
    // Fifteen more, each in a batch window of its own, while the first call still waits for its slot.
    const later = [];
    for (let index = 1; index <= 15; index += 1) {
      later.push(batches.load(`res-${index}`, 'checkout'));
      await jest.advanceTimersByTimeAsync(6);
    }
    expect(calls).toHaveLength(1);
    calls[0].grant();
    await jest.advanceTimersByTimeAsync(6);
    expect(calls.map((call) => call.keys.length)).toEqual([1, 10, 5]);
    calls.slice(1).forEach((call) => call.grant());
    await expect(Promise.all([first, ...later])).resolves.toEqual(Array.from({ length: 16 }, (_, index) => `read of res-${index}`));
  });

  it('sends a lone read at once: with no other read of its priority under way, the window would save no call', async () => {
    const { calls, batches } = busyPlatform();
    const alone = batches.load('res-0', 'checkout');
    await jest.advanceTimersByTimeAsync(0);
    expect(calls.map((call) => call.keys)).toEqual([['res-0']]);
    // One asked for while that call is under way waits the window, for the reads of a busy moment to share a call.
    const next = batches.load('res-1', 'checkout');
    const after = batches.load('res-2', 'checkout');
    calls[0].grant();
    await jest.advanceTimersByTimeAsync(0);
    expect(calls).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(5);
    expect(calls.map((call) => call.keys)).toEqual([['res-0'], ['res-1', 'res-2']]);
    calls[1].grant();
    await expect(Promise.all([alone, next, after])).resolves.toEqual(['read of res-0', 'read of res-1', 'read of res-2']);
  });

  it('waits at most a second for an earlier call: a budget that never grants it does not hold the next reads', async () => {
    const { calls, batches } = busyPlatform();
    void batches.load('res-0', 'checkout');
    await jest.advanceTimersByTimeAsync(6);
    const next = batches.load('res-1', 'checkout');
    await jest.advanceTimersByTimeAsync(900);
    expect(calls).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(200);
    expect(calls.map((call) => call.keys)).toEqual([['res-0'], ['res-1']]);
    calls[1].grant();
    await expect(next).resolves.toBe('read of res-1');
  });
});
