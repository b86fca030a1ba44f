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
