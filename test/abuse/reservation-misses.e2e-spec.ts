import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { announcedReservation, cardBody, checkoutClient, freshReservation, upstreamRequests } from '../utils/checkout-client';
import { keysAdded } from '../utils/keys-added';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';
import { onSurface } from '../utils/surface';

/**
 * The minute's budget scaled down: the made-up ids of the flood alone (18 lookups, 2 calls each on
 * the current surface: the reservation and a guest read alike) would spend all of it; the allowed
 * misses (6) leave room for a real checkout (4 calls on the legacy surface, 8 on the current).
 */
const PER_MINUTE = onSurface({ current: 22, legacy: 16 });
const MISSES_PER_ADDRESS = 2;
const ADDRESSES = ['198.18.9.1', '198.18.9.2', '198.18.9.3'];
const TRIES_PER_ADDRESS = 6;

const madeUpReservationId = () => `res-${randomBytes(9).toString('base64url')}`;
const open = (url: string, address: string, reservationId: string, email: string) =>
  request(url).post('/checkout/sessions').set('X-Forwarded-For', address).send({ reservationId, email });

/**
 * docs/product-spec.md §7: opening a session reads the reservation at checkout priority, so a flood
 * of made-up reservation ids, each a platform read, would spend the budget real checkouts need.
 * Each address may miss (404) `CHECKOUT_RESERVATION_MISSES_PER_IP` times; after that its session
 * opens are refused 429 `rate_limited` before anything is read upstream.
 */
describe('made-up reservation ids cannot spend the budget real checkouts need', () => {
  let world: SandboxedApps;
  let url: string;

  beforeAll(async () => {
    world = await startSandboxedApps(1, {
      env: {
        TRUST_PROXY: '1',
        UPSTREAM_RATE_LIMITS: `100/s,${PER_MINUTE}/m,5000/h`,
        CHECKOUT_RESERVATION_MISSES_PER_IP: `${MISSES_PER_ADDRESS}/h`,
      },
      sandbox: { rateLimits: { perSecond: 100, perMinute: PER_MINUTE, perHour: 5000 }, paymentVisibilityDelayMs: 0 },
    });
    url = world.apps[0].url;
  });

  afterAll(() => world.close());

  // A miss is a reservation read: 404 on the legacy read, an empty list from Reservations V3.
  const reservationReads = () => world.sandbox.control.requestLog.filter((entry) => entry.route === 'reservation').length;

  it('each address misses its allowance, is then refused before the platform, and a real checkout completes', async () => {
    const answers: string[][] = [];
    for (const address of ADDRESSES) {
      const perAddress: string[] = [];
      for (let i = 0; i < TRIES_PER_ADDRESS; i += 1) {
        const answer = await open(url, address, madeUpReservationId(), 'someone@example.com');
        perAddress.push(`${answer.status} ${answer.body.code}`);
        if (answer.status === 429) {
          expect(answer.body.detail).toMatch(/reservations not found/i);
          expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
        }
      }
      answers.push(perAddress);
    }
    // Only the allowance reached the platform.
    expect(reservationReads()).toBe(ADDRESSES.length * MISSES_PER_ADDRESS);

    const { reservationId, guestEmail } = freshReservation(world);
    const session = await open(url, '198.18.9.200', reservationId, guestEmail);
    expect(session.status).toBe(201);
    const paid = await checkoutClient(url).submit(session.body.id as string, cardBody());
    expect(paid.body.status).toBe('succeeded');
    expect(world.sandbox.control.counters.rateLimited).toBe(0);
    const expected = [
      ...Array<string>(MISSES_PER_ADDRESS).fill('404 reservation_not_found'),
      ...Array<string>(TRIES_PER_ADDRESS - MISSES_PER_ADDRESS).fill('429 rate_limited'),
    ];
    expect(answers).toEqual(ADDRESSES.map(() => expected));

    // A refusal sends nothing upstream and writes nothing beyond the counters it was refused by.
    const keysBefore = await world.apps[0].redisKeys();
    const sentBefore = upstreamRequests(world);
    for (const address of ADDRESSES) expect((await open(url, address, madeUpReservationId(), 'someone@example.com')).status).toBe(429);
    expect(upstreamRequests(world)).toBe(sentBefore);
    expect(keysAdded(keysBefore, await world.apps[0].redisKeys())).toEqual([]);
  });
});

describe('only misses spend the allowance', () => {
  let world: SandboxedApps;

  beforeAll(async () => {
    // A budget wide enough that the anonymous share, where made-up ids and unannounced reservations
    // are found (spec §7), never refuses a lookup here: these tests count misses and places.
    world = await startSandboxedApps(1, {
      env: {
        TRUST_PROXY: '1',
        CHECKOUT_RESERVATION_MISSES_PER_IP: `${MISSES_PER_ADDRESS}/h`,
        UPSTREAM_RATE_LIMITS: '100/s,1000/m,20000/h',
      },
      sandbox: { rateLimits: { perSecond: 100, perMinute: 1000, perHour: 20000 } },
    });
  });

  afterAll(() => world.close());

  it('a reservation found is no miss: one address opens more sessions than its allowance of misses', async () => {
    const address = '198.18.9.50';
    for (let i = 0; i < MISSES_PER_ADDRESS + 1; i += 1) {
      const { reservationId, guestEmail } = freshReservation(world);
      expect((await open(world.apps[0].url, address, reservationId, guestEmail)).status).toBe(201);
    }
    // A wrong email is a miss as an unknown id is (the two answers are one, so both are guesses).
    const { reservationId } = freshReservation(world);
    for (let i = 0; i < MISSES_PER_ADDRESS; i += 1) {
      expect((await open(world.apps[0].url, address, reservationId, 'someone-else@example.com')).body.code).toBe('reservation_not_found');
    }
    expect((await open(world.apps[0].url, address, madeUpReservationId(), 'someone@example.com')).status).toBe(429);
  });

  it('session opens in flight at once from one network never refuse each other, however many there are', async () => {
    // Guests behind one address on a slow platform: every read is still on its way when the next
    // open arrives. Only a miss that happened spends the allowance, never a read in flight.
    const address = '198.18.9.60';
    world.sandbox.control.setRouteDelay('reservation', 300);
    try {
      const reservations = Array.from({ length: MISSES_PER_ADDRESS * 3 }, () => freshReservation(world));
      const answers = await Promise.all(reservations.map((r) => open(world.apps[0].url, address, r.reservationId, r.guestEmail)));
      expect(answers.map((answer) => answer.status)).toEqual(reservations.map(() => 201));
    } finally {
      world.sandbox.control.setRouteDelay('reservation', 0);
    }
    // Its allowance of misses is whole.
    for (let i = 0; i < MISSES_PER_ADDRESS; i += 1) {
      expect((await open(world.apps[0].url, address, madeUpReservationId(), 'someone@example.com')).body.code).toBe(
        'reservation_not_found',
      );
    }
    expect((await open(world.apps[0].url, address, madeUpReservationId(), 'someone@example.com')).status).toBe(429);
  });

  it('guesses sent at once from one fresh network read the platform no more often than its allowance of misses', async () => {
    // Every guess is on its way before any answer: the allowance is spent before the reads are sent.
    const address = '198.18.9.70';
    const before = world.sandbox.control.requestLog.filter((entry) => entry.route === 'reservation').length;
    world.sandbox.control.setRouteDelay('reservation', 300);
    let answers: request.Response[];
    try {
      answers = await Promise.all(
        Array.from({ length: 30 }, () => open(world.apps[0].url, address, madeUpReservationId(), 'someone@example.com')),
      );
    } finally {
      world.sandbox.control.setRouteDelay('reservation', 0);
    }
    const reads = world.sandbox.control.requestLog.filter((entry) => entry.route === 'reservation').length - before;
    expect(reads).toBeLessThanOrEqual(MISSES_PER_ADDRESS);
    const codes = answers.map((answer) => `${answer.status} ${answer.body.code}`);
    expect(codes.filter((code) => code === '404 reservation_not_found')).toHaveLength(MISSES_PER_ADDRESS);
    expect(codes.filter((code) => code === '429 rate_limited')).toHaveLength(30 - MISSES_PER_ADDRESS);
    for (const answer of answers.filter((each) => each.status === 429)) {
      expect(answer.body.detail).toMatch(/reservations not found/i);
      expect(Number(answer.headers['retry-after'])).toBeGreaterThan(60);
    }
  });

  it('a lookup cut short by a fault gives its place back and counts nothing', async () => {
    const address = '198.18.9.75';
    // More faulted lookups than the allowance: had they kept their places, the next open would wait.
    world.sandbox.control.forceStatus('reservation', 500);
    try {
      const faulted = await Promise.all(
        Array.from({ length: MISSES_PER_ADDRESS + 1 }, () =>
          open(world.apps[0].url, address, madeUpReservationId(), 'someone@example.com'),
        ),
      );
      expect(faulted.every((answer) => answer.status >= 500 && answer.body.code !== 'rate_limited')).toBe(true);
    } finally {
      world.sandbox.control.clearFaults();
    }
    for (let i = 0; i < MISSES_PER_ADDRESS; i += 1) {
      expect((await open(world.apps[0].url, address, madeUpReservationId(), 'someone@example.com')).body.code).toBe(
        'reservation_not_found',
      );
    }
    expect((await open(world.apps[0].url, address, madeUpReservationId(), 'someone@example.com')).status).toBe(429);
  });

  it('an unknown reservation id is remembered briefly: the same guess from other addresses reads the platform once, and still counts as their miss', async () => {
    const reads = () => world.sandbox.control.requestLog.filter((entry) => entry.route === 'reservation').length;
    const guess = madeUpReservationId();
    const before = reads();
    for (const address of ['198.18.9.80', '198.18.9.81', '198.18.9.82']) {
      expect((await open(world.apps[0].url, address, guess, 'someone@example.com')).body.code).toBe('reservation_not_found');
    }
    expect(reads() - before).toBe(1);
    // Each address spent a miss: its allowance ends as if each guess had been read.
    for (let i = 1; i < MISSES_PER_ADDRESS; i += 1) await open(world.apps[0].url, '198.18.9.80', guess, 'someone@example.com');
    expect((await open(world.apps[0].url, '198.18.9.80', guess, 'someone@example.com')).status).toBe(429);
  });
});

describe('guesses spread over replicas', () => {
  let world: SandboxedApps;

  beforeAll(async () => {
    // The platform announces its reservations (a webhook): the guests below are read at checkout
    // priority, not behind the guesses' anonymous share (spec §7).
    world = await startSandboxedApps(2, {
      webhooks: true,
      env: { TRUST_PROXY: '1', CHECKOUT_RESERVATION_MISSES_PER_IP: `${MISSES_PER_ADDRESS}/h` },
    });
  });

  afterAll(() => world.close());

  it('read the platform no more often than the network’s allowance, and real guests of the network still open sessions at once', async () => {
    const reads = () => world.sandbox.control.requestLog.filter((entry) => entry.route === 'reservation').length;
    world.sandbox.control.setRouteDelay('reservation', 300);
    try {
      const before = reads();
      const guesses = await Promise.all(
        Array.from({ length: 20 }, (_, i) => open(world.apps[i % 2].url, '198.18.9.90', madeUpReservationId(), 'someone@example.com')),
      );
      expect(reads() - before).toBeLessThanOrEqual(MISSES_PER_ADDRESS);
      expect(guesses.filter((answer) => answer.status === 404)).toHaveLength(MISSES_PER_ADDRESS);
      expect(guesses.every((answer) => answer.status === 404 || answer.status === 429)).toBe(true);

      const guests = [];
      for (let i = 0; i < 6; i += 1) guests.push(await announcedReservation(world));
      const opened = await Promise.all(guests.map((r, i) => open(world.apps[i % 2].url, '198.18.9.91', r.reservationId, r.guestEmail)));
      expect(opened.map((answer) => answer.status)).toEqual(guests.map(() => 201));
    } finally {
      world.sandbox.control.setRouteDelay('reservation', 0);
    }
  });
});

describe('a session open that finds no place among its network’s lookups', () => {
  let world: SandboxedApps;

  beforeAll(async () => {
    world = await startSandboxedApps(1, {
      env: {
        TRUST_PROXY: '1',
        CHECKOUT_RESERVATION_MISSES_PER_IP: `${MISSES_PER_ADDRESS}/h`,
        UPSTREAM_TIMEOUT_MS: '15000',
        UPSTREAM_DEADLINE_MS: '20000',
      },
    });
  });

  afterAll(() => world.close());

  it('waits for one, then answers 503 rate_limited with Retry-After 1, never the misses’ 429, and the lookups it waited for complete', async () => {
    // A platform slower than the wait: the network's places stay taken for 12 s.
    world.sandbox.control.setRouteDelay('reservation', 12_000);
    try {
      const guests = Array.from({ length: MISSES_PER_ADDRESS + 1 }, () => freshReservation(world));
      const answers = await Promise.all(guests.map((r) => open(world.apps[0].url, '198.18.9.95', r.reservationId, r.guestEmail)));
      const waited = answers.filter((answer) => answer.status === 503);
      expect(waited).toHaveLength(1);
      expect(waited[0].body.code).toBe('rate_limited');
      expect(waited[0].body.detail).toMatch(/being looked up for your network/);
      expect(waited[0].headers['retry-after']).toBe('1');
      expect(answers.filter((answer) => answer.status === 201)).toHaveLength(MISSES_PER_ADDRESS);
    } finally {
      world.sandbox.control.setRouteDelay('reservation', 0);
    }
  }, 40_000);
});
