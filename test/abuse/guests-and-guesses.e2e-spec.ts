import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { announcedReservation, cardBody, checkoutClient, freshReservation } from '../utils/checkout-client';
import { UNKNOWN_FIND_MISSES } from '../../src/checkout/unknown-finds';
import { keysAdded } from '../utils/keys-added';
import { waitUntil } from '../utils/redis-server';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';
import { onSurface } from '../utils/surface';

const madeUpReservationId = () => `res-${randomBytes(9).toString('base64url')}`;
const open = (url: string, address: string, reservationId: string, email: string) =>
  request(url).post('/checkout/sessions').set('X-Forwarded-For', address).send({ reservationId, email });
const reservationReads = (world: SandboxedApps) => world.sandbox.control.requestLog.filter((entry) => entry.route === 'reservation').length;

/** Upstream calls the replica's budget granted at `priority` so far (its wait histogram counts each grant). */
async function grantsAt(world: SandboxedApps, priority: 'anonymous' | 'checkout'): Promise<number> {
  const text = (await request(world.apps[0].url).get('/metrics')).text;
  const line = new RegExp(`^upstream_limiter_wait_seconds_count\\{priority="${priority}"\\} (\\d+)`, 'm').exec(text);
  return line ? Number(line[1]) : 0;
}

/**
 * docs/product-spec.md §7: a session open reads at checkout priority for a reservation the platform
 * announced or a guest found; once the account announces its reservations, any other id is found
 * at the anonymous share. Here that share is 0: what reaches the platform was read at checkout priority.
 */
describe('a guess spends the anonymous share, a guest the checkout share', () => {
  let world: SandboxedApps;
  let url: string;

  beforeAll(async () => {
    world = await startSandboxedApps(1, { webhooks: true, env: { TRUST_PROXY: '1', UPSTREAM_ANONYMOUS_SHARE: '0' } });
    url = world.apps[0].url;
  });

  afterAll(() => world.close());

  it('once the platform announces the account’s reservations, made-up ids from many networks read nothing, and an announced reservation opens and is paid', async () => {
    const { reservationId, guestEmail } = await announcedReservation(world);
    const readsBefore = reservationReads(world);
    const keysBefore = await world.apps[0].redisKeys();
    const guesses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => open(url, `198.18.20.${i + 1}`, madeUpReservationId(), 'someone@example.com')),
    );
    // "Try again" (the anonymous share is spent), never a refusal's code, and the platform is not asked.
    expect(guesses.map((answer) => `${answer.status} ${answer.body.code}`)).toEqual(guesses.map(() => '503 rate_limited'));
    expect(guesses.every((answer) => Number(answer.headers['retry-after']) > 0)).toBe(true);
    expect(reservationReads(world)).toBe(readsBefore);
    // Nothing is left but the networks' counters (the check of their misses; their places went back)
    // and the access token the first call minted.
    const left = keysAdded(keysBefore, await world.apps[0].redisKeys());
    expect(left.filter((key) => !key.includes('{limit:client-ip:') && !key.includes('{auth:'))).toEqual([]);

    const session = await open(url, '198.18.20.200', reservationId, guestEmail);
    expect(session.status).toBe(201);
    const paid = await checkoutClient(url).submit(session.body.id as string, cardBody());
    expect(paid.body.status).toBe('succeeded');
    // The card's reservation.updated.v2 has its charges re-read for the session: done before the next count.
    await world.sandbox.control.webhooksSettled();
    await waitUntil(
      async () => /^payment_status_checks_total\{source="upstream"\} [1-9]/m.test((await request(url).get('/metrics')).text),
      2_500,
      "the paid reservation's charges re-read after its webhook",
    );
  });

  it('a reservation made before the account announced it is found at the anonymous share', async () => {
    world.sandbox.control.setWebhookTarget(undefined);
    const { reservationId, guestEmail } = freshReservation(world);
    world.sandbox.control.setWebhookTarget(`${url}/webhooks/guesty`);
    const readsBefore = reservationReads(world);
    const answer = await open(url, '198.18.20.201', reservationId, guestEmail);
    expect(`${answer.status} ${answer.body.code}`).toBe('503 rate_limited');
    expect(reservationReads(world)).toBe(readsBefore);
  });

  it('once its guest’s email was seen, wrong emails on a known reservation read at the anonymous share, and the guest’s own at checkout', async () => {
    const { reservationId, guestEmail } = await announcedReservation(world);
    // Announced, its guest's email not seen yet: the first wrong email is read, and is a miss.
    const readsBefore = reservationReads(world);
    expect((await open(url, '198.18.20.210', reservationId, 'someone-else@example.com')).body.code).toBe('reservation_not_found');
    expect(reservationReads(world)).toBe(readsBefore + 1);
    // From then on a wrong email reaches nothing the checkouts need.
    const again = await open(url, '198.18.20.211', reservationId, 'another-one@example.com');
    expect(`${again.status} ${again.body.code}`).toBe('503 rate_limited');
    expect(reservationReads(world)).toBe(readsBefore + 1);
    // The guest, whatever the case of the address they type, still opens at checkout priority.
    expect((await open(url, '198.18.20.212', reservationId, ` ${guestEmail.toUpperCase()} `)).status).toBe(201);

    // What the service keeps of the guest's email is a keyed digest: the address is in no value.
    const contents = await world.apps[0].redisContents();
    expect([...contents.values()].filter((value) => value.toLowerCase().includes(guestEmail))).toEqual([]);
  });
});

/** Budget limits no test here meets: what a lookup spends, at which share, is under test, not the budget's pace. */
const ROOMY_BUDGET = {
  sandbox: { rateLimits: { perSecond: 1000, perMinute: 60_000, perHour: 1_000_000 } },
  env: { TRUST_PROXY: '1', UPSTREAM_RATE_LIMITS: '1000/s,60000/m,1000000/h' },
};

/** Without the platform's reservation webhooks, guests still open sessions: the product works either way. */
describe('an account that does not send reservation webhooks', () => {
  let world: SandboxedApps;

  beforeAll(async () => {
    world = await startSandboxedApps(1, ROOMY_BUDGET);
  });

  afterAll(() => world.close());

  it('finds its guests at checkout priority while few ids were misses, at the anonymous share after a run of them, and a found reservation at checkout priority again', async () => {
    const first = freshReservation(world);
    const anonymousBefore = await grantsAt(world, 'anonymous');
    expect((await open(world.apps[0].url, '198.18.21.1', first.reservationId, first.guestEmail)).status).toBe(201);
    expect(await grantsAt(world, 'anonymous')).toBe(anonymousBefore);

    for (let i = 0; i < UNKNOWN_FIND_MISSES; i += 1) {
      expect((await open(world.apps[0].url, `198.18.21.${10 + i}`, madeUpReservationId(), 'someone@example.com')).status).toBe(404);
    }
    const second = freshReservation(world);
    const anonymousAfterGuesses = await grantsAt(world, 'anonymous');
    expect((await open(world.apps[0].url, '198.18.21.2', second.reservationId, second.guestEmail)).status).toBe(201);
    // Found, and its guest's email read, at the anonymous share (the legacy read is one call for both);
    // its money, once the email matched, at checkout priority.
    expect((await grantsAt(world, 'anonymous')) - anonymousAfterGuesses).toBe(onSurface({ current: 2, legacy: 1 }));

    // Found once, it is known: its guest's next open reads nothing at the anonymous share.
    const anonymousBetween = await grantsAt(world, 'anonymous');
    expect((await open(world.apps[0].url, '198.18.21.3', second.reservationId, second.guestEmail)).status).toBe(201);
    expect(await grantsAt(world, 'anonymous')).toBe(anonymousBetween);
  });
});

describe('an account that does not send reservation webhooks, repeated guesses and many guests at once', () => {
  let world: SandboxedApps;

  beforeAll(async () => {
    world = await startSandboxedApps(1, { env: { TRUST_PROXY: '1' } });
  });

  afterAll(() => world.close());

  it('counts a guess the replica remembers as no miss: it read nothing, and guests are still found at checkout priority', async () => {
    const guess = madeUpReservationId();
    const readsBefore = reservationReads(world);
    for (let i = 0; i < UNKNOWN_FIND_MISSES; i += 1) {
      expect((await open(world.apps[0].url, `198.18.21.${50 + i}`, guess, 'someone@example.com')).status).toBe(404);
    }
    expect(reservationReads(world)).toBe(readsBefore + 1);
    const guest = freshReservation(world);
    const anonymousBefore = await grantsAt(world, 'anonymous');
    expect((await open(world.apps[0].url, '198.18.21.60', guest.reservationId, guest.guestEmail)).status).toBe(201);
    expect(await grantsAt(world, 'anonymous')).toBe(anonymousBefore);
  });

  it('finds more guests at once than the replica’s allowance at checkout priority: the later one waits for the first to be found', async () => {
    // One more than the allowance: the last waits for one find, not for waves of them, so a loaded
    // machine (each wave a read) does not stretch its wait past UNKNOWN_FIND_WAIT_MS.
    const guests = Array.from({ length: UNKNOWN_FIND_MISSES + 1 }, () => freshReservation(world));
    const anonymousBefore = await grantsAt(world, 'anonymous');
    const opened = await Promise.all(
      guests.map((guest, i) => open(world.apps[0].url, `198.18.21.${100 + i}`, guest.reservationId, guest.guestEmail)),
    );
    expect(opened.map((answer) => answer.status)).toEqual(guests.map(() => 201));
    expect(await grantsAt(world, 'anonymous')).toBe(anonymousBefore);
  });
});

/**
 * docs/product-spec.md §7: floods never stop a checkout, with or without webhooks. A guest who gives
 * the confirmation code as well is found at checkout priority while guesses meet a spent anonymous
 * share; guesses that give a code have an allowance of their own, which guesses without one never spend.
 */
describe('an account that does not send reservation webhooks, during a flood of guesses', () => {
  let world: SandboxedApps;
  let url: string;

  beforeAll(async () => {
    world = await startSandboxedApps(1, { env: { TRUST_PROXY: '1', UPSTREAM_ANONYMOUS_SHARE: '0' } });
    url = world.apps[0].url;
  });

  afterAll(() => world.close());

  const codeOf = (reservationId: string) => String(world.sandbox.control.getReservation(reservationId)?.confirmationCode);
  const openWithCode = (address: string, reservationId: string, email: string, confirmationCode: string) =>
    request(url).post('/checkout/sessions').set('X-Forwarded-For', address).send({ reservationId, email, confirmationCode });

  it('opens a session for a guest who gives the confirmation code, while one without it waits behind the guesses', async () => {
    // Guesses until the replica's finds at checkout priority are spent: the anonymous share (none here) is what is left.
    for (let i = 0; i < UNKNOWN_FIND_MISSES; i += 1) {
      expect((await open(url, `198.18.22.${i + 1}`, madeUpReservationId(), 'someone@example.com')).status).toBe(404);
    }
    const guest = freshReservation(world);
    const uncoded = await open(url, '198.18.22.100', guest.reservationId, guest.guestEmail);
    expect(`${uncoded.status} ${uncoded.body.code}`).toBe('503 rate_limited');

    const anonymousBefore = await grantsAt(world, 'anonymous');
    const coded = await openWithCode('198.18.22.101', guest.reservationId, guest.guestEmail, codeOf(guest.reservationId).toLowerCase());
    expect(coded.status).toBe(201);
    expect(await grantsAt(world, 'anonymous')).toBe(anonymousBefore);
    const paid = await checkoutClient(url).submit(coded.body.id as string, cardBody());
    expect(paid.body.status).toBe('succeeded');
  });

  it('answers a wrong code on a real reservation as a made-up id with a code, and bounds coded guesses by their own allowance', async () => {
    const guest = freshReservation(world);
    const strip = (body: Record<string, unknown>) => ({ ...body, requestId: undefined });
    const wrongCode = await openWithCode('198.18.22.110', guest.reservationId, guest.guestEmail, 'NOT-ITS-CODE');
    const madeUp = await openWithCode('198.18.22.111', madeUpReservationId(), guest.guestEmail, 'NOT-ITS-CODE');
    expect(wrongCode.status).toBe(404);
    expect(strip(wrongCode.body)).toEqual(strip(madeUp.body));
    for (let i = 2; i < UNKNOWN_FIND_MISSES; i += 1) {
      expect((await openWithCode(`198.18.22.${112 + i}`, madeUpReservationId(), 'someone@example.com', 'ANY-CODE')).status).toBe(404);
    }
    // The coded allowance spent by coded guesses: the next coded lookup waits behind the guesses too.
    const late = freshReservation(world);
    const answer = await openWithCode('198.18.22.130', late.reservationId, late.guestEmail, codeOf(late.reservationId));
    expect(`${answer.status} ${answer.body.code}`).toBe('503 rate_limited');
  });
});
