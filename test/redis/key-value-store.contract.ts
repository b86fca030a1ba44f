import { KeyValueStore, MOST_BLOCK_SLOTS, SlotWindow, blockMembers, slotAnswerOf, slotStep } from '../../src/redis/key-value-store';

/**
 * The behaviour every KeyValueStore must show; run against Redis and the in-process store alike
 * (key-value-store.e2e-spec.ts), so development and production agree.
 */
export function describeKeyValueStoreContract(
  name: string,
  open: () => Promise<{ store: KeyValueStore; prefix: string; close(): Promise<void> }>,
): void {
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

    it('names its memory policy: the test servers, every master of a cluster too, evict nothing', async () => {
      await expect(store.evictionPolicy()).resolves.toBe('noeviction');
    });

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

    it('claims a key beside a value it reads in the same step, and writes nothing when that value is absent', async () => {
      // One hash tag: a Redis Cluster runs the step only over keys of one slot.
      const claim = key('{beside}:claim');
      const beside = key('{beside}:record');
      await expect(store.claimBeside(claim, 'mine', 60_000, beside)).resolves.toEqual({ beside: null, claimed: false, existing: null });
      await expect(store.get(claim)).resolves.toBeNull();
      await store.set(beside, 'the record');
      await expect(store.claimBeside(claim, 'mine', 60_000, beside)).resolves.toEqual({
        beside: 'the record',
        claimed: true,
        existing: null,
      });
      await expect(store.claimBeside(claim, 'theirs', 60_000, beside)).resolves.toEqual({
        beside: 'the record',
        claimed: false,
        existing: 'mine',
      });
      const left = await store.ttlMs(claim);
      expect(left).toBeGreaterThan(0);
      expect(left).toBeLessThanOrEqual(60_000);
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

    it('renews an expiry only while the value is still the expected one', async () => {
      await store.set(key('lease'), 'mine', { ttlMs: 1_000 });
      await expect(store.extendIfEquals(key('lease'), 'theirs', 60_000)).resolves.toBe(false);
      expect(await store.ttlMs(key('lease'))).toBeLessThanOrEqual(1_000);
      await expect(store.extendIfEquals(key('lease'), 'mine', 60_000)).resolves.toBe(true);
      expect(await store.ttlMs(key('lease'))).toBeGreaterThan(50_000);
      await expect(store.extendIfEquals(key('no-lease'), 'mine', 60_000)).resolves.toBe(false);
      await expect(store.get(key('no-lease'))).resolves.toBeNull();
    });

    it('replaces a versioned record only from the version it was read at', async () => {
      const record = (version: number, status: string) => JSON.stringify({ version, status });
      await expect(store.replaceIfVersion(key('rec'), null, record(1, 'new'), 60_000)).resolves.toBe(true);
      await expect(store.replaceIfVersion(key('rec'), null, record(1, 'again'), 60_000)).resolves.toBe(false);
      await expect(store.replaceIfVersion(key('rec'), 2, record(3, 'stale'), 60_000)).resolves.toBe(false);
      await expect(store.replaceIfVersion(key('rec'), 1, record(2, 'next'), 60_000)).resolves.toBe(true);
      await expect(store.replaceIfVersion(key('rec'), 1, record(2, 'lost race'), 60_000)).resolves.toBe(false);
      await expect(store.get(key('rec'))).resolves.toBe(record(2, 'next'));
      await expect(store.replaceIfVersion(key('absent'), 1, record(2, 'x'), 60_000)).resolves.toBe(false);
      await store.set(key('not-json'), 'plain');
      await expect(store.replaceIfVersion(key('not-json'), 1, record(2, 'x'), 60_000)).resolves.toBe(false);
      expect(await store.ttlMs(key('rec'))).toBeGreaterThan(50_000);
    });

    it('replaces a versioned record in a batch only from the version it was read at, and stops the batch otherwise', async () => {
      const record = (version: number, note: string) => JSON.stringify({ version, note });
      const session = key('{cas}:session');
      const answer = key('{cas}:answer');
      await expect(
        store.batch([
          { op: 'replaceIfVersion', key: session, expectedVersion: null, value: record(1, 'opened'), ttlMs: 60_000 },
          { op: 'set', key: answer, value: 'first', ttlMs: 60_000 },
        ]),
      ).resolves.toEqual([true, true]);
      await expect(
        store.batch([
          { op: 'replaceIfVersion', key: session, expectedVersion: 2, value: record(3, 'stale writer'), ttlMs: 60_000 },
          { op: 'set', key: answer, value: 'stale', ttlMs: 60_000 },
        ]),
      ).resolves.toEqual([false, null]);
      await expect(
        store.batch([{ op: 'replaceIfVersion', key: session, expectedVersion: 1, value: record(2, 'paid'), ttlMs: 60_000 }]),
      ).resolves.toEqual([true]);
      await expect(store.get(session)).resolves.toBe(record(2, 'paid'));
      await expect(store.get(answer)).resolves.toBe('first');
    });

    it('runs a batch of steps in order, in one go, answering each', async () => {
      await store.set(key('{b}:owned'), 'mine');
      await store.set(key('{b}:ttl'), 'x', { ttlMs: 30_000 });
      const answers = await store.batch([
        { op: 'get', key: key('{b}:missing') },
        { op: 'set', key: key('{b}:new'), value: 'v', ttlMs: 60_000 },
        { op: 'get', key: key('{b}:new') },
        { op: 'deleteIfEquals', key: key('{b}:owned'), value: 'theirs' },
        { op: 'deleteIfEquals', key: key('{b}:owned'), value: 'mine' },
        { op: 'ttl', key: key('{b}:ttl') },
        { op: 'ttl', key: key('{b}:missing') },
      ]);
      expect(answers.slice(0, 5)).toEqual([null, true, 'v', false, true]);
      expect(answers[5]).toBeGreaterThan(20_000);
      expect(answers[6]).toBeNull();
      await expect(store.get(key('{b}:owned'))).resolves.toBeNull();
      expect(await store.ttlMs(key('{b}:new'))).toBeGreaterThan(50_000);
      await expect(store.batch([])).resolves.toEqual([]);
    });

    it('stops a batch at a guard that does not hold: nothing after it is done (a fencing check)', async () => {
      await store.set(key('{g}:lease'), 'writer-b');
      const fenced = await store.batch([
        { op: 'get', key: key('{g}:lease') },
        { op: 'requireEquals', key: key('{g}:lease'), value: 'writer-a' },
        { op: 'set', key: key('{g}:intent'), value: 'sending', ttlMs: 60_000 },
      ]);
      expect(fenced).toEqual(['writer-b', false, null]);
      await expect(store.get(key('{g}:intent'))).resolves.toBeNull();
      const held = await store.batch([
        { op: 'requireEquals', key: key('{g}:lease'), value: 'writer-b' },
        { op: 'set', key: key('{g}:intent'), value: 'sending', ttlMs: 60_000 },
      ]);
      expect(held).toEqual([true, true]);
      await expect(store.get(key('{g}:intent'))).resolves.toBe('sending');
      await expect(
        store.batch([
          { op: 'requireEquals', key: key('{g}:absent'), value: 'x' },
          { op: 'get', key: key('{g}:intent') },
        ]),
      ).resolves.toEqual([false, null]);
    });

    it('takes a key only while it is absent, and goes on only while another is absent (guards that stop a batch)', async () => {
      const taken = await store.batch([
        { op: 'setIfAbsent', key: key('{t}:lease'), value: 'writer-a', ttlMs: 60_000 },
        { op: 'get', key: key('{t}:lease') },
      ]);
      expect(taken).toEqual([true, 'writer-a']);
      expect(await store.ttlMs(key('{t}:lease'))).toBeGreaterThan(50_000);
      await expect(
        store.batch([
          { op: 'setIfAbsent', key: key('{t}:lease'), value: 'writer-b', ttlMs: 60_000 },
          { op: 'set', key: key('{t}:intent'), value: 'b', ttlMs: 60_000 },
        ]),
      ).resolves.toEqual([false, null]);
      await expect(store.get(key('{t}:lease'))).resolves.toBe('writer-a');
      await store.set(key('{t}:wait'), '1', { ttlMs: 60_000 });
      const waiting = await store.batch([
        { op: 'set', key: key('{t}:intent'), value: 'prepared', ttlMs: 60_000 },
        { op: 'requireAbsent', key: key('{t}:wait') },
        { op: 'set', key: key('{t}:intent'), value: 'sending', ttlMs: 60_000 },
      ]);
      expect(waiting).toEqual([true, false, null]);
      await expect(store.get(key('{t}:intent'))).resolves.toBe('prepared');
      const clear = await store.batch([
        { op: 'requireAbsent', key: key('{t}:gone') },
        { op: 'set', key: key('{t}:intent'), value: 'sending', ttlMs: 60_000 },
      ]);
      expect(clear).toEqual([true, true]);
      await expect(store.get(key('{t}:intent'))).resolves.toBe('sending');
    });

    it('adds to and removes from a sorted index of another slot in a batch, but removes nothing past a guard that stopped it', async () => {
      const index = key('batch-idx');
      const added = await store.batch([
        { op: 'set', key: key('{x}:intent'), value: 'open', ttlMs: 60_000 },
        { op: 'indexAdd', key: index, member: 'x one', score: 100 },
      ]);
      expect(added).toEqual([true, true]);
      await expect(store.indexDue(index, 1_000, 10)).resolves.toEqual(['x one']);
      const stopped = await store.batch([
        { op: 'requireEquals', key: key('{x}:intent'), value: 'settled' },
        { op: 'indexRemove', key: index, member: 'x one' },
      ]);
      expect(stopped).toEqual([false, null]);
      await expect(store.indexDue(index, 1_000, 10)).resolves.toEqual(['x one']);
      const removed = await store.batch([
        { op: 'set', key: key('{x}:intent'), value: 'settled', ttlMs: 60_000 },
        { op: 'indexRemove', key: index, member: 'x one' },
      ]);
      expect(removed).toEqual([true, true]);
      await expect(store.indexDue(index, 1_000, 10)).resolves.toEqual([]);
    });

    it('writes a key in a batch only where it is absent when asked, and goes on either way', async () => {
      await store.set(key('{nx}:token'), 'held');
      await expect(
        store.batch([
          { op: 'set', key: key('{nx}:token'), value: 'copy', ttlMs: 60_000, ifAbsent: true },
          { op: 'set', key: key('{nx}:ledger'), value: 'copy', ttlMs: 60_000, ifAbsent: true },
        ]),
      ).resolves.toEqual([false, true]);
      await expect(store.get(key('{nx}:token'))).resolves.toBe('held');
      await expect(store.get(key('{nx}:ledger'))).resolves.toBe('copy');
      expect(await store.ttlMs(key('{nx}:ledger'))).toBeGreaterThan(50_000);
    });

    it('deletes a key in a batch', async () => {
      await store.set(key('{del}:cached'), 'stale');
      await expect(
        store.batch([
          { op: 'delete', key: key('{del}:cached') },
          { op: 'delete', key: key('{del}:absent') },
        ]),
      ).resolves.toEqual([true, true]);
      await expect(store.get(key('{del}:cached'))).resolves.toBeNull();
    });

    it('runs a step of another slot in its place in a batch, and not past a guard that stopped it', async () => {
      // A lease and what it guards under one tag, a session under its own: atomic on one Redis, in order on a Cluster.
      await store.set(key('{own}:lease'), 'writer-a');
      await store.set(key('{other}:session'), 'requires_payment_method');
      const ran = await store.batch([
        { op: 'requireEquals', key: key('{own}:lease'), value: 'writer-a' },
        { op: 'get', key: key('{other}:session'), otherSlot: true },
        { op: 'set', key: key('{other}:written'), value: 'yes', ttlMs: 60_000, otherSlot: true },
        { op: 'get', key: key('{own}:lease') },
      ]);
      expect(ran).toEqual([true, 'requires_payment_method', true, 'writer-a']);
      await expect(store.get(key('{other}:written'))).resolves.toBe('yes');
      const stopped = await store.batch([
        { op: 'requireEquals', key: key('{own}:lease'), value: 'writer-b' },
        { op: 'set', key: key('{other}:stopped'), value: 'yes', ttlMs: 60_000, otherSlot: true },
      ]);
      expect(stopped).toEqual([false, null]);
      await expect(store.get(key('{other}:stopped'))).resolves.toBeNull();
      const stoppedThere = await store.batch([
        { op: 'setIfAbsent', key: key('{other}:written'), value: 'again', ttlMs: 60_000, otherSlot: true },
        { op: 'set', key: key('{own}:after'), value: 'yes', ttlMs: 60_000 },
      ]);
      expect(stoppedThere).toEqual([false, null]);
      await expect(store.get(key('{own}:after'))).resolves.toBeNull();
    });

    it('keeps a sorted index and answers the members due, lowest score first', async () => {
      await store.indexAdd(key('idx'), 'late', 300);
      await store.indexAdd(key('idx'), 'early', 100);
      await store.indexAdd(key('idx'), 'middle', 200);
      await expect(store.indexDue(key('idx'), 250, 10)).resolves.toEqual(['early', 'middle']);
      await expect(store.indexDue(key('idx'), 1_000, 1)).resolves.toEqual(['early']);
      await store.indexAdd(key('idx'), 'early', 400);
      await store.indexRemove(key('idx'), 'middle');
      await expect(store.indexDue(key('idx'), 1_000, 10)).resolves.toEqual(['late', 'early']);
      await expect(store.indexDue(key('idx-missing'), 1_000, 10)).resolves.toEqual([]);
    });

    it('deletes several keys at once', async () => {
      await store.set(key('d1'), '1');
      await store.set(key('d2'), '2');
      await store.delete(key('d1'), key('d2'));
      await expect(store.get(key('d1'))).resolves.toBeNull();
      await expect(store.get(key('d2'))).resolves.toBeNull();
    });

    describe('takeSlot / pauseSlots (shared multi-window budget)', () => {
      let members = 0;
      const budget = (name: string, windows: SlotWindow[]) => {
        const windowKeys = windows.map((w) => key(`{${name}}:w:${w.windowMs}`));
        const pauseKey = key(`{${name}}:pause`);
        const take = (override: SlotWindow[] = windows) =>
          store.takeSlot({ windowKeys, pauseKey, windows: override, member: `m${(members += 1)}` });
        return { windowKeys, pauseKey, take };
      };
      const w = (limit: number, windowMs: number, reserve = 0): SlotWindow => ({ limit, windowMs, reserve });

      it('grants up to the limit, then denies until the oldest slot leaves the window', async () => {
        const { take } = budget('grant', [w(3, 10_000)]);
        for (let i = 0; i < 3; i += 1) await expect(take()).resolves.toEqual({ granted: true, retryAfterMs: 0, left: 2 - i });
        const denied = await take();
        expect(denied.granted).toBe(false);
        expect(denied.retryAfterMs).toBeGreaterThan(9_000);
        expect(denied.retryAfterMs).toBeLessThanOrEqual(10_000);
      });

      it('takes a slot in every window or in none', async () => {
        const { windowKeys, pauseKey, take } = budget('all-or-none', [w(2, 10_000), w(5, 60_000)]);
        await take();
        await take();
        await expect(take()).resolves.toMatchObject({ granted: false });
        // The denied call left the minute window alone: it still holds 2 slots, so 1 more fits under 3.
        const minuteOnly = { windowKeys: [windowKeys[1]], pauseKey, windows: [w(3, 60_000)] };
        await expect(store.takeSlot({ ...minuteOnly, member: 'x1' })).resolves.toMatchObject({ granted: true });
        await expect(store.takeSlot({ ...minuteOnly, member: 'x2' })).resolves.toMatchObject({ granted: false });
      });

      it('answers the longest wait across the full windows', async () => {
        const { take } = budget('longest', [w(1, 10_000), w(1, 60_000)]);
        await take();
        const denied = await take();
        expect(denied.granted).toBe(false);
        expect(denied.retryAfterMs).toBeGreaterThan(59_000);
        expect(denied.retryAfterMs).toBeLessThanOrEqual(60_000);
      });

      it('leaves the reserve free for callers without one', async () => {
        const { take } = budget('reserve', [w(5, 10_000, 2)]);
        for (let i = 0; i < 3; i += 1) await expect(take()).resolves.toMatchObject({ granted: true });
        const held = await take();
        expect(held.granted).toBe(false);
        expect(held.retryAfterMs).toBeGreaterThan(9_000);
        await expect(take([w(5, 10_000)])).resolves.toMatchObject({ granted: true });
        await expect(take([w(5, 10_000)])).resolves.toMatchObject({ granted: true });
        await expect(take([w(5, 10_000)])).resolves.toMatchObject({ granted: false });
      });

      it('takes the slots of several requests in order in one step, stopping at the first denied', async () => {
        // Two limits of one subject under one hash tag, as a network's requests and its reservation misses.
        const request = (name: string, limit: number, member: string) => ({
          windowKeys: [key(`{several}:${name}:w`)],
          pauseKey: key(`{several}:${name}:pause`),
          windows: [w(limit, 60_000)],
          member,
        });
        await expect(store.takeSlots([request('a', 2, 'a1'), request('b', 1, 'b1')])).resolves.toEqual([
          { granted: true, retryAfterMs: 0, left: 1 },
          { granted: true, retryAfterMs: 0, left: 0 },
        ]);
        const secondDenied = await store.takeSlots([request('a', 2, 'a2'), request('b', 1, 'b2')]);
        expect(secondDenied.map((answer) => answer.granted)).toEqual([true, false]);
        expect(secondDenied[1].retryAfterMs).toBeGreaterThan(59_000);
        // The first denied: the second is neither tried nor answered, and takes nothing.
        const firstDenied = await store.takeSlots([request('a', 2, 'a3'), request('b', 2, 'b3')]);
        expect(firstDenied.map((answer) => answer.granted)).toEqual([false]);
        await expect(store.takeSlot(request('b', 2, 'b4'))).resolves.toMatchObject({ granted: true });
      });

      it('takes a slot of each request on its own in one call, over subjects of several hash tags, denied ones among them', async () => {
        // Reads of three networks, as the read guard sends them together: one network's full window stops no other.
        const read = (network: string, limit: number, member: string) => ({
          windowKeys: [key(`{each-${network}}:w`)],
          pauseKey: key(`{each-${network}}:pause`),
          windows: [w(limit, 60_000)],
          member,
        });
        const answers = await store.takeEachSlot([
          read('a', 1, 'a1'),
          read('a', 1, 'a2'),
          read('b', 2, 'b1'),
          read('c', 1, 'c1'),
          read('b', 2, 'b2'),
          read('b', 2, 'b3'),
        ]);
        expect(answers.map((answer) => answer.granted)).toEqual([true, false, true, true, true, false]);
        expect(answers[1].retryAfterMs).toBeGreaterThan(59_000);
        expect(answers[5].retryAfterMs).toBeGreaterThan(59_000);
        await expect(store.takeSlot(read('c', 1, 'c2'))).resolves.toMatchObject({ granted: false });
        await expect(store.takeSlot(read('d', 1, 'd1'))).resolves.toMatchObject({ granted: true });
      });

      it('takes a block of slots at once or none, answering the slots left, and takes back the unused ones given', async () => {
        const { windowKeys, pauseKey } = budget('block', [w(10, 60_000)]);
        const block = (member: string, slots: number) => store.takeSlot({ windowKeys, pauseKey, windows: [w(10, 60_000)], member, slots });
        await expect(block('b1', 4)).resolves.toEqual({ granted: true, retryAfterMs: 0, left: 6 });
        const tooMany = await block('b2', 7);
        expect(tooMany.granted).toBe(false);
        expect(tooMany.retryAfterMs).toBeGreaterThan(59_000);
        // The denied block took nothing: six still fit.
        await expect(block('b3', 6)).resolves.toMatchObject({ granted: true, left: 0 });
        await expect(block('b4', 1)).resolves.toMatchObject({ granted: false });
        // Three of the first block's slots handed back (its holder used one): three fit again, no more.
        await store.releaseSlot(windowKeys, blockMembers('b1', 2, 4));
        await expect(block('b5', 3)).resolves.toMatchObject({ granted: true, left: 0 });
        await expect(block('b6', 1)).resolves.toMatchObject({ granted: false });
      });

      it('takes the largest block whole in one step, and refuses a larger one as a programming error', async () => {
        const windows = [w(MOST_BLOCK_SLOTS, 60_000)];
        const { windowKeys, pauseKey } = budget('largest', windows);
        const block = (member: string, slots: number) => store.takeSlot({ windowKeys, pauseKey, windows, member, slots });
        await expect(block('l1', MOST_BLOCK_SLOTS)).resolves.toEqual({ granted: true, retryAfterMs: 0, left: 0 });
        await expect(block('l2', 1)).resolves.toMatchObject({ granted: false });
        await store.releaseSlot(windowKeys, blockMembers('l1', MOST_BLOCK_SLOTS, MOST_BLOCK_SLOTS));
        await expect(block('l3', 1)).resolves.toMatchObject({ granted: true, left: 0 });
        // Thrown or rejected, as each store refuses a request it cannot hold.
        await expect(Promise.resolve().then(() => block('l4', MOST_BLOCK_SLOTS + 1))).rejects.toThrow(/a block is 1 to/);
      });

      it("counts a block's slots from the end of its holding time, so a read handed out late still counts a whole window", async () => {
        const { windowKeys, pauseKey } = budget('held', [w(2, 1_000)]);
        const take = (member: string, slots: number, countsFromMs: number) =>
          store.takeSlot({ windowKeys, pauseKey, windows: [w(2, 1_000)], member, slots, countsFromMs });
        await expect(take('h1', 2, 60_000)).resolves.toMatchObject({ granted: true, left: 0 });
        const denied = await take('h2', 1, 0);
        expect(denied.granted).toBe(false);
        // Free once the held slots leave their one-second window: after the minute they are held, not after a second.
        expect(denied.retryAfterMs).toBeGreaterThan(60_000);
        expect(denied.retryAfterMs).toBeLessThanOrEqual(61_000);
      });

      it('counts a slot as a guard of a batch: granted goes on, denied answers the wait and stops it, a present key skips it', async () => {
        // A reservation's card attempts beside its lease and its card on file, under the reservation's tag.
        const request = (member: string) => ({
          windowKeys: [key('{slot-step}:attempts:w')],
          pauseKey: key('{slot-step}:attempts:pause'),
          windows: [w(1, 60_000)],
          member,
        });
        const card = key('{slot-step}:card');
        const after = key('{slot-step}:after');
        const granted = await store.batch([
          { op: 'get', key: card },
          slotStep(request('a1'), [card]),
          { op: 'set', key: after, value: 'ran', ttlMs: 60_000 },
        ]);
        expect(granted).toEqual([null, true, true]);
        await store.delete(after);
        const denied = await store.batch([slotStep(request('a2'), [card]), { op: 'set', key: after, value: 'ran', ttlMs: 60_000 }]);
        expect(denied[0]).toBeGreaterThan(59_000);
        expect(denied[1]).toBeNull();
        expect(slotAnswerOf(denied[0])).toMatchObject({ granted: false });
        await expect(store.get(after)).resolves.toBeNull();
        await store.set(card, 'on file');
        const skipped = await store.batch([{ op: 'get', key: card }, slotStep(request('a3'), [card]), { op: 'get', key: card }]);
        expect(skipped).toEqual(['on file', false, null]);
        // Skipped, it took nothing: with the card gone the window still holds only the first slot.
        await store.delete(card);
        await store.releaseSlot([key('{slot-step}:attempts:w')], 'a1');
        await expect(store.batch([slotStep(request('a4'))])).resolves.toEqual([true]);
      });

      it('runs a step of another slot past a slot it counted, and not past one denied or skipped', async () => {
        // A session opened on a reservation: its card on file and its count under the reservation's tag, the session under its own.
        const window = key('{slot-other}:sessions:w');
        const card = key('{slot-other}:card');
        const session = (name: string) => key(`{${name}}:session`);
        const open = (member: string, name: string) =>
          store.batch([
            { op: 'get', key: card },
            slotStep({ windowKeys: [window], pauseKey: key('{slot-other}:sessions:pause'), windows: [w(1, 60_000)], member }, [card]),
            { op: 'setIfAbsent', key: session(name), value: member, ttlMs: 60_000, otherSlot: true },
          ]);
        await expect(open('s1', 's1')).resolves.toEqual([null, true, true]);
        const denied = await open('s2', 's2');
        expect(denied[1]).toBeGreaterThan(59_000);
        expect(denied[2]).toBeNull();
        await expect(store.get(session('s2'))).resolves.toBeNull();
        await store.releaseSlot([window], 's1');
        await store.set(card, 'on file');
        await expect(open('s3', 's3')).resolves.toEqual(['on file', false, null]);
        await expect(store.get(session('s3'))).resolves.toBeNull();
        await store.delete(card);
        // Counted, and the key of another slot found taken: it keeps what it held.
        await expect(open('s4', 's1')).resolves.toEqual([null, true, false]);
        await expect(store.get(session('s1'))).resolves.toBe('s1');
      });

      it('honours a pause and keeps the longer of two pauses', async () => {
        const { pauseKey, take } = budget('pause', [w(100, 10_000)]);
        await store.pauseSlots(pauseKey, 5_000);
        const paused = await take();
        expect(paused.granted).toBe(false);
        expect(paused.retryAfterMs).toBeGreaterThan(4_000);
        expect(paused.retryAfterMs).toBeLessThanOrEqual(5_000);
        await store.pauseSlots(pauseKey, 100);
        expect(await store.ttlMs(pauseKey)).toBeGreaterThan(4_000);
        await store.pauseSlots(pauseKey, 20_000);
        expect(await store.ttlMs(pauseKey)).toBeGreaterThan(15_000);
        await store.delete(pauseKey);
        await expect(take()).resolves.toMatchObject({ granted: true });
      });

      it('gives a released slot back at once, and ignores a member it does not hold', async () => {
        const { windowKeys, pauseKey } = budget('release', [w(1, 60_000)]);
        const takeAs = (member: string) => store.takeSlot({ windowKeys, pauseKey, windows: [w(1, 60_000)], member });
        await expect(takeAs('hold-1')).resolves.toMatchObject({ granted: true });
        await store.releaseSlot(windowKeys, 'hold-unknown');
        await expect(takeAs('hold-2')).resolves.toMatchObject({ granted: false });
        await store.releaseSlot(windowKeys, 'hold-1');
        await expect(takeAs('hold-2')).resolves.toMatchObject({ granted: true });
      });

      it('gives a slot back in a batch, in its place, and not past a guard that stopped it', async () => {
        const { windowKeys, pauseKey } = budget('release-step', [w(1, 60_000)]);
        const takeAs = (member: string) => store.takeSlot({ windowKeys, pauseKey, windows: [w(1, 60_000)], member });
        const gate = key('{release-gate}:gate');
        const giveBack = (member: string) =>
          store.batch([
            { op: 'requireAbsent', key: gate },
            { op: 'releaseSlot', key: windowKeys[0], member, otherSlot: true },
          ]);
        await expect(takeAs('step-1')).resolves.toMatchObject({ granted: true });
        await store.set(gate, 'closed');
        await expect(giveBack('step-1')).resolves.toEqual([false, null]);
        await expect(takeAs('step-2')).resolves.toMatchObject({ granted: false });
        await store.delete(gate);
        await expect(giveBack('step-1')).resolves.toEqual([true, true]);
        await expect(takeAs('step-2')).resolves.toMatchObject({ granted: true });
      });

      it('makes a log only where the request lets it: told when it made one, nothing written where it may not', async () => {
        const request = (name: string, member: string, newRecord: 'tell' | 'refuse') => ({
          windowKeys: [key(`{new-record:${name}}:w`)],
          pauseKey: key(`{new-record:${name}}:pause`),
          windows: [w(2, 60_000)],
          member,
          newRecord,
        });
        await expect(store.takeSlot(request('a', 'a1', 'refuse'))).resolves.toEqual({ granted: false, retryAfterMs: 0, absent: true });
        await expect(store.takeSlots([request('a', 'a2', 'refuse'), request('a', 'a3', 'tell')])).resolves.toEqual([
          { granted: false, retryAfterMs: 0, absent: true },
        ]);
        await expect(store.takeSlot(request('a', 'a4', 'tell'))).resolves.toEqual({ granted: true, retryAfterMs: 0, left: 1, made: true });
        // The log exists now: either way takes from it, and neither says it made it.
        await expect(store.takeEachSlot([request('a', 'a5', 'refuse'), request('b', 'b1', 'refuse')])).resolves.toEqual([
          { granted: true, retryAfterMs: 0, left: 0 },
          { granted: false, retryAfterMs: 0, absent: true },
        ]);
        await expect(store.takeSlot(request('a', 'a6', 'tell'))).resolves.toMatchObject({ granted: false });
        // In a batch: refused, it stops the batch; told, it goes on.
        const after = key('{new-record:c}:after');
        const refused = await store.batch([slotStep(request('c', 'c1', 'refuse')), { op: 'set', key: after, value: 'ran', ttlMs: 60_000 }]);
        expect(refused).toEqual(['absent', null]);
        expect(slotAnswerOf(refused[0])).toEqual({ granted: false, retryAfterMs: 0, absent: true });
        await expect(store.get(after)).resolves.toBeNull();
        const made = await store.batch([slotStep(request('c', 'c2', 'tell')), { op: 'set', key: after, value: 'ran', ttlMs: 60_000 }]);
        expect(made).toEqual(['made', true]);
        expect(slotAnswerOf(made[0])).toEqual({ granted: true, retryAfterMs: 0, made: true });
        await expect(store.batch([slotStep(request('c', 'c3', 'tell'))])).resolves.toEqual([true]);
      });

      it('takes of a fixed-window count up to its limit, shared by every caller, and starts again with a new window', async () => {
        const count = key('count:a');
        await expect(store.takeCount(count, 3, 5, 60_000)).resolves.toMatchObject({ taken: 3 });
        const partly = await store.takeCount(count, 3, 5, 60_000);
        expect(partly.taken).toBe(2);
        expect(partly.endsInMs).toBeGreaterThan(59_000);
        expect(partly.endsInMs).toBeLessThanOrEqual(60_000);
        await expect(store.takeCount(count, 1, 5, 60_000)).resolves.toMatchObject({ taken: 0 });
        // The window ends with the key: the next take starts a new one.
        await store.delete(count);
        await expect(store.takeCount(count, 6, 5, 60_000)).resolves.toMatchObject({ taken: 5 });
      });

      it('frees slots as they leave the window', async () => {
        const { take } = budget('expiry', [w(2, 200)]);
        await take();
        await take();
        const denied = await take();
        expect(denied.granted).toBe(false);
        expect(denied.retryAfterMs).toBeGreaterThan(0);
        expect(denied.retryAfterMs).toBeLessThanOrEqual(200);
        // The one real wait of this suite: a 200 ms window has to pass.
        await new Promise((resolve) => setTimeout(resolve, denied.retryAfterMs + 20));
        await expect(take()).resolves.toMatchObject({ granted: true });
      });
    });
  });
}
