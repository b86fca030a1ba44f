import { RedisKeys } from './redis-keys';

/** CRC16-XMODEM (polynomial 0x1021, initial 0), the checksum of Redis Cluster's key slots. */
function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit += 1) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/**
 * The key slot as the Redis Cluster specification defines it: when the key has a "{" followed by a
 * "}" with at least one character between them, only what lies between the first "{" and the
 * first "}" after it is hashed; otherwise the whole key is.
 */
function keySlot(key: string): number {
  const open = key.indexOf('{');
  const close = open >= 0 ? key.indexOf('}', open + 1) : -1;
  const hashed = close > open + 1 ? key.slice(open + 1, close) : key;
  return crc16(Buffer.from(hashed, 'utf8')) % 16_384;
}

const slotsOf = (keys: string[]) => new Set(keys.map(keySlot));

// ioredis routes commands with this package; agreeing with it ties the spec above to the client's view.
const clusterKeySlot = jest.requireActual<(key: string) => number>('cluster-key-slot');

// The prefixes REDIS_KEY_PREFIX allows (letters, digits, ":_{}.-"), braces included; only an empty
// "{}" is refused with a cluster (parse-configuration), as it would make Redis hash whole keys.
const PREFIXES = ['checkout:', 'test:3f2a9c:', '{tenant-a}:', 'a{b:', 'x}y:', 'p{'];
// The default upstream budget's windows (UPSTREAM_RATE_LIMITS=15/s,120/m,5000/h).
const WINDOWS = [{ windowMs: 1_000 }, { windowMs: 60_000 }, { windowMs: 3_600_000 }];

describe('RedisKeys in a Redis Cluster', () => {
  it('computes key slots as Redis does', () => {
    expect(crc16(Buffer.from('123456789'))).toBe(0x31c3);
    expect(keySlot('{user1000}.following')).toBe(keySlot('{user1000}.followers'));
    expect(keySlot('foo{}{bar}')).toBe(crc16(Buffer.from('foo{}{bar}')) % 16_384);
    expect(keySlot('foo{{bar}}zap')).toBe(keySlot('{bar'));
    expect(keySlot('foo{bar}{zap}')).toBe(keySlot('bar'));
    for (const key of ['foo', 'checkout:session:cs_1', '{upstream-budget}:pause', 'a{b:{auth:1}:token', 'x}y:{limit:client-ip:2}:w']) {
      expect(keySlot(key)).toBe(clusterKeySlot(key));
    }
  });

  // A state in flight across a deploy is found by the same names: the used record is the state's name and `:used`.
  it('names a 3-D Secure state and its used record as before', () => {
    expect(new RedisKeys('checkout:').threeDsState('d1g3st')).toEqual({
      state: 'checkout:3ds-state:d1g3st',
      used: 'checkout:3ds-state:d1g3st:used',
    });
  });

  // Every builder of RedisKeys, so that a new one is sorted here into single keys or a group.
  it('knows every key builder', () => {
    expect(Object.getOwnPropertyNames(RedisKeys.prototype).sort()).toEqual(
      [
        'constructor',
        'upstreamBudget',
        'accessToken',
        'checkoutSession',
        'untaggedCheckoutSession',
        'legacyCheckoutSession',
        'reservationWrites',
        'quoteWrites',
        'journal',
        'followUps',
        'threeDsState',
        'idempotencyRecord',
        'sessionIdempotencyRecord',
        'requestLimit',
        'cache',
        'upstreamShare',
        'paymentStatus',
        'quotes',
        'webhookMessage',
        'knownReservation',
        'reservationAnnouncements',
        'fetchLock',
        'anonymousRecords',
      ].sort(),
    );
  });

  describe.each(PREFIXES)('under the prefix %s, the keys one script touches share one slot', (prefix) => {
    const keys = new RedisKeys(prefix);

    it("one reservation's writes: lease, last write, open intent, intents and card on file (the journal's batches)", () => {
      const writes = keys.reservationWrites('res-checkout-usd');
      expect(
        slotsOf([writes.lease, writes.lastWrite, writes.openIntent, writes.card, writes.booking, writes.intent('0123abcd')]).size,
      ).toBe(1);
      // What the service knows of it is written in the session count's step, beside the card on file.
      expect(
        slotsOf([writes.card, keys.knownReservation('res-checkout-usd'), keys.requestLimit('sessions', 'res-checkout-usd').window]).size,
      ).toBe(1);
    });

    it("one quote's writes before its reservation: lease, last write, open intent, intents and booking record", () => {
      const writes = keys.quoteWrites('q-1');
      expect(slotsOf([writes.lease, writes.lastWrite, writes.openIntent, writes.booking, writes.intent('0123abcd')]).size).toBe(1);
    });

    it('the upstream budget: every window log and the pause (takeSlot, pauseSlots)', () => {
      const budget = keys.upstreamBudget();
      expect(slotsOf([...budget.windowKeys(WINDOWS), budget.pause]).size).toBe(1);
    });

    it("a share of the upstream budget: its window logs in the budget's own slot (takeSlot)", () => {
      const budget = keys.upstreamBudget();
      expect(slotsOf([...budget.windowKeys(WINDOWS), budget.pause, ...keys.upstreamShare('anonymous', WINDOWS)]).size).toBe(1);
    });

    it('a request limit: its window log and its pause, for each limit and subject (takeSlot)', () => {
      for (const limit of ['client-ip', 'card-attempts', 'sessions'] as const) {
        for (const subject of ['203.0.113.0/24', '2001:db8::/64', 'res-checkout-usd']) {
          const { window, pause } = keys.requestLimit(limit, subject);
          expect(slotsOf([window, pause]).size).toBe(1);
        }
      }
    });

    it("a checkout session and its routes' Idempotency-Key records (claimBeside)", () => {
      const ref = RedisKeys.sessionRef('cs_0123456789abcdef0123456789abcdef');
      const records = ['key-1', 'key-2'].map((key) => keys.sessionIdempotencyRecord(ref, 'payment-method:cs_0123', key));
      expect(slotsOf([keys.checkoutSession(ref), ...records]).size).toBe(1);
    });

    it("a network's requests and its reservation misses (takeSlots when a session is opened)", () => {
      const requests = keys.requestLimit('client-ip', '203.0.113.0/24');
      const misses = keys.requestLimit('reservation-misses', '203.0.113.0/24');
      expect(new Set([requests.window, misses.window]).size).toBe(2);
      expect(slotsOf([requests.window, requests.pause, misses.window, misses.pause]).size).toBe(1);
    });

    it("a listing's unpaid holds and the nights they hold (counted in one step when a booking is held)", () => {
      const holds = keys.requestLimit('unpaid-holds', 'lst-seaside');
      const nights = keys.requestLimit('unpaid-nights', 'lst-seaside');
      expect(new Set([holds.window, nights.window]).size).toBe(2);
      expect(slotsOf([holds.window, holds.pause, nights.window, nights.pause]).size).toBe(1);
    });

    it("a reservation's lease, its journal's reads and its card attempts (the step that takes a card submission's lease)", () => {
      const writes = keys.reservationWrites('res-checkout-usd');
      const attempts = keys.requestLimit('card-attempts', 'res-checkout-usd');
      expect(slotsOf([writes.lease, writes.openIntent, writes.card, writes.intent('0123abcd'), attempts.window, attempts.pause]).size).toBe(
        1,
      );
    });

    it("a reservation's writes and its payment-status answer and lock (a card attach's landed step drops the answer)", () => {
      const writes = keys.reservationWrites('res-checkout-usd');
      const status = keys.paymentStatus('res-checkout-usd');
      expect(
        slotsOf([writes.intent('0123abcd'), writes.openIntent, writes.lastWrite, writes.card, writes.lease, status.answer, status.lock])
          .size,
      ).toBe(1);
    });

    it("a reservation's card on file and the sessions opened on it (counted in one step when a session is opened)", () => {
      const sessions = keys.requestLimit('sessions', 'res-checkout-usd');
      expect(slotsOf([keys.reservationWrites('res-checkout-usd').card, sessions.window, sessions.pause]).size).toBe(1);
    });

    it('an access token: the token, its mint lock, ledger and re-mint claims', () => {
      const token = keys.accessToken('client-id-1');
      expect(slotsOf([token.token, token.mintLock, token.mintLedger, token.refusalRemint]).size).toBe(1);
    });
  });

  it('would scatter a group under a prefix with an empty "{}", which configuration refuses for a cluster', () => {
    const budget = new RedisKeys('x{}:').upstreamBudget();
    expect(slotsOf([...budget.windowKeys(WINDOWS), budget.pause]).size).toBeGreaterThan(1);
  });

  // A session's tag is its own ref; 3-D Secure states, Idempotency-Key records, cache entries and fetch locks are only
  // ever used one key per command, so they need no tag; spreading them (and each subject's limits) keeps
  // one master from carrying all the checkout traffic.
  it('spreads per-subject keys over the cluster instead of one hot slot', () => {
    const keys = new RedisKeys('checkout:');
    const ids = Array.from({ length: 200 }, (_, i) => `subject-${i}`);
    const spread = (build: (id: string) => string) => slotsOf(ids.map(build)).size;
    expect(spread((id) => keys.requestLimit('client-ip', id).window)).toBeGreaterThan(190);
    expect(spread((id) => keys.checkoutSession(id))).toBeGreaterThan(190);
    expect(spread((id) => keys.idempotencyRecord(`payment-method:${id}`, 'key-1'))).toBeGreaterThan(190);
    expect(spread((id) => keys.sessionIdempotencyRecord(RedisKeys.sessionRef(id), 'payment-method', 'key-1'))).toBeGreaterThan(190);
    expect(spread((id) => keys.threeDsState(RedisKeys.digest(id)).state)).toBeGreaterThan(190);
    expect(spread((id) => keys.webhookMessage(`msg_${id}`))).toBeGreaterThan(190);
    expect(spread((id) => keys.fetchLock('calendar', `${id}:2031-07`))).toBeGreaterThan(190);
  });
});
