import { MemoryKeyValueStore } from './memory-key-value-store';

describe('MemoryKeyValueStore with a bound on its logs', () => {
  it('drops the oldest log made once it holds the most it may, and tells which logs still count', async () => {
    let now = 0;
    const store = new MemoryKeyValueStore(() => now, 2);
    const take = (key: string) =>
      store.takeSlot({ windowKeys: [key], pauseKey: `${key}:pause`, windows: [{ limit: 1, windowMs: 1_000, reserve: 0 }], member: 'm' });
    await take('a');
    await take('b');
    expect(store.keepsLog('a')).toBe(true);
    await take('c');
    expect([store.keepsLog('a'), store.keepsLog('b'), store.keepsLog('c')]).toEqual([false, true, true]);
    await expect(take('a')).resolves.toMatchObject({ granted: true });
    now += 1_000;
    expect(store.keepsLog('c')).toBe(false);
  });
});
