import { KeyValueStore } from '../../src/redis/key-value-store';

/**
 * The behaviour every KeyValueStore must show; run against Redis and the in-process store alike
 * (key-value-store.e2e-spec.ts), so development and production agree.
 */
export function describeKeyValueStoreContract(name: string, open: () => Promise<{ store: KeyValueStore; prefix: string; close(): Promise<void> }>): void {
  describe(`KeyValueStore contract: ${name}`, () => {
    let store: KeyValueStore;
    let prefix: string;
    let close: () => Promise<void>;

    beforeAll(async () => {
      ({ store, prefix, close } = await open());
    });

    afterAll(async () => {
      await close();
    });

    const key = (suffix: string) => `${prefix}${suffix}`;

    it('reads back what it wrote and answers null for a missing key', async () => {
      await expect(store.set(key('a'), 'one')).resolves.toBe(true);
      await expect(store.get(key('a'))).resolves.toBe('one');
      await expect(store.get(key('missing'))).resolves.toBeNull();
    });

    it('writes with ifAbsent only once', async () => {
      await expect(store.set(key('nx'), 'first', { ifAbsent: true })).resolves.toBe(true);
      await expect(store.set(key('nx'), 'second', { ifAbsent: true })).resolves.toBe(false);
      await expect(store.get(key('nx'))).resolves.toBe('first');
    });

    it('expires keys after their ttl and reports the time left', async () => {
      await store.set(key('ttl'), 'v', { ttlMs: 60_000 });
      const left = await store.ttlMs(key('ttl'));
      expect(left).toBeGreaterThan(50_000);
      expect(left).toBeLessThanOrEqual(60_000);
      await expect(store.ttlMs(key('missing'))).resolves.toBeNull();
      await store.set(key('short'), 'v', { ttlMs: 1 });
      await new Promise((resolve) => setTimeout(resolve, 5));
      await expect(store.get(key('short'))).resolves.toBeNull();
    });

    it('takes a value exactly once', async () => {
      await store.set(key('once'), 'state');
      const [first, second] = await Promise.all([store.take(key('once')), store.take(key('once'))]);
      expect([first, second].sort()).toEqual(['state', null].sort());
    });

    it('deletes only while the value is still the expected one', async () => {
      await store.set(key('lock'), 'mine');
      await expect(store.deleteIfEquals(key('lock'), 'theirs')).resolves.toBe(false);
      await expect(store.get(key('lock'))).resolves.toBe('mine');
      await expect(store.deleteIfEquals(key('lock'), 'mine')).resolves.toBe(true);
      await expect(store.get(key('lock'))).resolves.toBeNull();
    });

    it('deletes several keys at once', async () => {
      await store.set(key('d1'), '1');
      await store.set(key('d2'), '2');
      await store.delete(key('d1'), key('d2'));
      await expect(store.get(key('d1'))).resolves.toBeNull();
      await expect(store.get(key('d2'))).resolves.toBeNull();
    });
  });
}
