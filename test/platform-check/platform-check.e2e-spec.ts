import Redis from 'ioredis';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { Writable } from 'node:stream';
import { openCheck } from '../../src/platform-check';
import { CheckedOperation, Verdict } from '../../src/upstream/platform-check/check-report';
import { PlatformCheck } from '../../src/upstream/platform-check/platform-check';
import { startSandbox } from '../../sandbox/start-sandbox';
import {
  DEFAULT_READINGS,
  ForceStatusOptions,
  RunningSandbox,
  SANDBOX_CLIENT_SECRET,
  SandboxReadings,
  SandboxRoute,
} from '../../sandbox/types';
import { SandboxClient } from '../sandbox/sandbox-helpers';
import { CARDS } from '../utils/checkout-client';
import { ROOT } from '../utils/service-process';
import { pointedAtSandbox } from '../utils/sandboxed-apps';
import { testConfig, testKeyPrefix, testRedisUrl } from '../utils/test-config';

const ENTRY = path.join(ROOT, 'dist/src/platform-check.js');
const WRITES: SandboxRoute[] = ['createQuote', 'guests', 'reservationFromQuote', 'paymentMethods', 'reservationStatus', 'tokenize'];
const CHECK_GUEST = 'platform-check@example.com';

type Fault = [SandboxRoute, number, ForceStatusOptions?];
interface Made {
  reservationId: string;
  guestId: string;
}

/** What a sandbox reading (and fault) makes `platform:check` say of some operations; the rest are not asserted. */
interface Row {
  reading: string;
  readings?: Partial<SandboxReadings>;
  faults?: Fault[] | ((made: Made) => Fault[]);
  /** The reservation to check: a fresh one by default; a guest with cards where the row is about cards. */
  reservation?: 'fresh' | 'withCard' | 'guestWithOtherCard';
  /** Readings that name the reservation (its id is known only once made). */
  naming?: (reservationId: string) => Partial<SandboxReadings>;
  verdicts: Record<string, Verdict>;
  found?: Record<string, RegExp>;
  ok: boolean;
  choose?: { reservations?: 'current' | 'legacy' | undefined; paymentMethods?: 'current' | 'legacy' | undefined };
}

const CURRENT_CONFIRMED: Record<string, Verdict> = {
  getReservationsV3: 'confirmed',
  getGuestEmail: 'confirmed',
  getFolioOverview: 'confirmed',
  getFolioInvoiceItems: 'confirmed',
  listPayments: 'confirmed',
  listPaymentMethods: 'confirmed',
  getPaymentProvider: 'confirmed',
};

/** One line per sandbox reading (docs/sandbox.md): a reading added later is one more row. */
const TABLE: Row[] = [
  {
    reading: 'the defaults: bare lists, filter honoured, the legacy reservation read retired, the legacy payment methods served',
    verdicts: { ...CURRENT_CONFIRMED, 'getReservation (legacy)': 'contradicted', 'listPaymentMethods (legacy)': 'confirmed' },
    found: { 'getReservation (legacy)': /404: retired/, getReservationsV3: /a bare array/ },
    ok: true,
    choose: { reservations: 'current', paymentMethods: 'current' },
  },
  {
    reading: 'paymentSummary present',
    readings: { paymentSummary: 'present' },
    verdicts: CURRENT_CONFIRMED,
    ok: true,
  },
  {
    reading: 'overviewFields seen (subTotalPrice accepted too)',
    readings: { overviewFields: 'seen' },
    verdicts: CURRENT_CONFIRMED,
    ok: true,
  },
  {
    reading: 'legacyPaymentMethodRoutes retired',
    readings: { legacyPaymentMethodRoutes: 'retired' },
    verdicts: { ...CURRENT_CONFIRMED, 'listPaymentMethods (legacy)': 'contradicted' },
    found: { 'listPaymentMethods (legacy)': /404: retired/ },
    ok: true,
    choose: { paymentMethods: 'current' },
  },
  {
    reading: 'listWrapper results',
    readings: { listWrapper: 'results' },
    reservation: 'withCard',
    verdicts: CURRENT_CONFIRMED,
    found: { getReservationsV3: /\{results\}/, listPayments: /\{results\}/, listPaymentMethods: /\{results\}; 1 item/ },
    ok: true,
  },
  {
    reading: 'methodListFilter ignored',
    readings: { methodListFilter: 'ignored' },
    reservation: 'guestWithOtherCard',
    verdicts: CURRENT_CONFIRMED,
    found: { listPaymentMethods: /the filter ignored \(1 item of other bookings\)/ },
    ok: true,
  },
  {
    reading: 'methodListFilter honoured',
    readings: { methodListFilter: 'honoured' },
    reservation: 'guestWithOtherCard',
    verdicts: CURRENT_CONFIRMED,
    found: { listPaymentMethods: /empty/ },
    ok: true,
  },
  {
    reading: 'listEchoesReservationId',
    readings: { listEchoesReservationId: true },
    reservation: 'withCard',
    verdicts: CURRENT_CONFIRMED,
    found: { listPaymentMethods: /naming reservationId and confirmationCode; the filter honoured/ },
    ok: true,
  },
  {
    reading: 'reservationsV3Misses naming the reservation, legacy routes retired',
    naming: (id) => ({ reservationsV3Misses: [id] }),
    verdicts: { getReservationsV3: 'contradicted', getGuestEmail: 'unreadable', 'getReservation (legacy)': 'contradicted' },
    found: { getReservationsV3: /none with _id/ },
    ok: false,
    choose: { reservations: undefined },
  },
  {
    reading: 'reservationsV3Misses naming the reservation, legacy routes served',
    readings: { legacyRoutes: 'served' },
    naming: (id) => ({ reservationsV3Misses: [id] }),
    verdicts: { getReservationsV3: 'contradicted', 'getReservation (legacy)': 'confirmed', getPaymentProvider: 'confirmed' },
    ok: false,
    choose: { reservations: 'legacy' },
  },
  {
    reading: 'legacyRoutes served',
    readings: { legacyRoutes: 'served' },
    verdicts: { ...CURRENT_CONFIRMED, 'getReservation (legacy)': 'confirmed', 'listPaymentMethods (legacy)': 'confirmed' },
    ok: true,
    choose: { reservations: 'current', paymentMethods: 'current' },
  },
  {
    reading: 'payments answering 404',
    faults: [['payments', 404]],
    verdicts: { listPayments: 'contradicted', listPaymentMethods: 'confirmed' },
    found: { listPayments: /^404/ },
    ok: false,
  },
  {
    reading: 'payment-method list answering 404, legacy routes served',
    readings: { legacyRoutes: 'served' },
    faults: [['listPaymentMethods', 404]],
    verdicts: { listPaymentMethods: 'contradicted', listPayments: 'confirmed' },
    ok: false,
  },
  {
    reading: 'the overview refusing a field (400)',
    faults: [
      [
        'folioOverview',
        400,
        { body: { message: 'Some of the request parameters are invalid', details: [{ field: 'fields', message: 'unknown: hostPayout' }] } },
      ],
    ],
    verdicts: { getFolioOverview: 'contradicted', getFolioInvoiceItems: 'confirmed' },
    found: { getFolioOverview: /^400: .*hostPayout/ },
    ok: false,
  },
  {
    reading: 'the guest’s email only in the guest list, as guestEmail',
    faults: ({ guestId }) => [
      ['guest', 200, { body: { _id: guestId, firstName: 'Ada' } }],
      ['guestsList', 200, { body: { results: [{ _id: guestId, guestEmail: 'ada@example.com' }], total: 1 } }],
    ],
    verdicts: { getGuestEmail: 'confirmed' },
    found: { getGuestEmail: /the single read carries no email; the list read carries guestEmail/ },
    ok: true,
  },
  {
    reading: 'guestEmailIn list (the guest reports guide’s reading)',
    readings: { guestEmailIn: 'list' },
    verdicts: CURRENT_CONFIRMED,
    found: { getGuestEmail: /the single read carries no email; the list read carries email/ },
    ok: true,
  },
  {
    reading: 'guestEmailField guestEmail, in the single read',
    readings: { guestEmailField: 'guestEmail' },
    verdicts: CURRENT_CONFIRMED,
    ok: true,
  },
  {
    reading: 'guestEmailIn list, as guestEmail',
    readings: { guestEmailIn: 'list', guestEmailField: 'guestEmail' },
    verdicts: CURRENT_CONFIRMED,
    found: { getGuestEmail: /the list read carries guestEmail/ },
    ok: true,
  },
  ...(['reservationId', 'both'] as const).map((names): Row => ({
    reading: `methodNames ${names}`,
    readings: { methodNames: names },
    reservation: 'withCard',
    verdicts: CURRENT_CONFIRMED,
    ok: true,
  })),
  {
    reading: 'methodNames neither (a card the product cannot place)',
    readings: { methodNames: 'neither' },
    reservation: 'withCard',
    verdicts: { ...CURRENT_CONFIRMED, listPaymentMethods: 'contradicted' },
    ok: false,
  },
  {
    reading: 'the guest’s email in neither read',
    faults: ({ guestId }) => [
      ['guest', 200, { body: { _id: guestId, firstName: 'Ada' } }],
      ['guestsList', 200, { body: { results: [], total: 0 } }],
    ],
    verdicts: { getGuestEmail: 'contradicted', getReservationsV3: 'confirmed' },
    found: { getGuestEmail: /none with _id/ },
    ok: false,
  },
  {
    reading: 'payments failing (503)',
    faults: [['payments', 503]],
    verdicts: { listPayments: 'unreadable' },
    ok: false,
  },
];

/**
 * This file's checks share one outbound budget (the prefix) and spend more than the platform's minute:
 * the budget is not under test. The current surface is configured unless a test says otherwise.
 */
const ROOMY_BUDGET = { UPSTREAM_RATE_LIMITS: '100/s,6000/m,100000/h', UPSTREAM_ANONYMOUS_SHARE: '100', GUESTY_API_SURFACE: 'current' };

const nowhere = () => new Writable({ write: (_chunk, _encoding, done) => done() });

function commandEnv(sandbox: RunningSandbox, prefix: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    ...pointedAtSandbox(sandbox.urls),
    REDIS_URL: testRedisUrl(),
    REDIS_KEY_PREFIX: prefix,
    NODE_ENV: 'test',
    ...ROOMY_BUDGET,
    // The store is new to this test: its writes need not wait out the settle horizon of a lost journal.
    WRITE_HOLD_ON_NEW_STORE: 'false',
    ...extra,
  };
}

/** `npm run platform:check -- …` as the operator runs it (built by scripts/test.js): its exit code and output. */
function runCommand(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [ENTRY, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** No secret, token or card number in what the command prints. */
function expectNoSecret(output: string, card: string = CARDS.noThreeDs): void {
  expect(output).not.toContain(SANDBOX_CLIENT_SECRET);
  expect(output).not.toContain(card);
  expect(output).not.toMatch(/Bearer|eyJ[\w-]{10,}|sk_sandbox_/);
  expect(output).not.toMatch(/cs_[\w-]{20,}/);
}

describe('platform:check', () => {
  let sandbox: RunningSandbox;
  let prefix: string;
  let check: PlatformCheck;
  let close: () => Promise<void>;
  let made = 0;
  let platform: SandboxClient;
  let redis: Redis;

  beforeAll(async () => {
    // Room for a dozen checks and the command's own runs: the limits are not under test here.
    sandbox = await startSandbox({
      legacyRoutes: 'retired',
      paymentVisibilityDelayMs: 0,
      rateLimits: { perSecond: 100, perMinute: 6000, perHour: 100000 },
    });
    platform = new SandboxClient(sandbox);
    redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 1 });
    prefix = testKeyPrefix();
    ({ check, close } = await openCheck(
      testConfig({ ...pointedAtSandbox(sandbox.urls), ...ROOMY_BUDGET, REDIS_KEY_PREFIX: prefix }),
      nowhere(),
    ));
  });
  afterAll(async () => {
    redis.disconnect();
    await close();
    await sandbox.stop();
  });
  afterEach(() => {
    sandbox.control.clearFaults();
    sandbox.control.setReadings({ ...DEFAULT_READINGS, legacyRoutes: 'retired' });
  });

  async function reservationFor(kind: Row['reservation'] = 'fresh'): Promise<Made> {
    made += 1;
    const guestEmail = `check-${made}-${Date.now()}@example.com`;
    const make = () => sandbox.control.createReservation({ listingId: 'lst-seaside', guestEmail, balanceDue: 300, currency: 'USD' });
    const reservation = make();
    if (kind === 'withCard') await platform.payWithCard(reservation.reservationId, CARDS.noThreeDs);
    if (kind !== 'guestWithOtherCard') return reservation;
    // The same guest's card on another booking: a list that ignores its filter shows it here too.
    await platform.payWithCard(reservation.reservationId, CARDS.noThreeDs);
    return make();
  }

  const byName = (operations: CheckedOperation[]) => Object.fromEntries(operations.map((operation) => [operation.operation, operation]));

  it.each(TABLE.map((row) => [row.reading, row]))('%s', async (_reading, row) => {
    const made = await reservationFor(row.reservation);
    const { reservationId } = made;
    sandbox.control.setReadings({ ...row.readings, ...row.naming?.(reservationId) });
    const faults = typeof row.faults === 'function' ? row.faults(made) : (row.faults ?? []);
    for (const [route, status, options] of faults) sandbox.control.forceStatus(route, status, options);

    const report = await check.read(reservationId);

    const operations = byName(report.operations);
    expect(Object.fromEntries(Object.keys(row.verdicts).map((name) => [name, operations[name]?.verdict]))).toEqual(row.verdicts);
    for (const [name, pattern] of Object.entries(row.found ?? {})) expect(operations[name].found).toMatch(pattern);
    expect(report.ok).toBe(row.ok);
    for (const [resource, choice] of Object.entries(row.choose ?? {}))
      expect(report.choices.find((candidate) => candidate.resource === resource)?.choose).toBe(choice);
    expect(report.calls).toBeLessThanOrEqual(15);
    // What the product will do is said for every operation, and a wrong reading never passes as confirmed.
    for (const operation of report.operations) expect(operation.productWill).not.toBe('');
  });

  it('runs as a command: prints exactly {ok, operations} and exits 0 when every configured read is confirmed, 1 when one is not', async () => {
    const { reservationId } = await reservationFor();
    const good = await runCommand(['--reservation', reservationId, '--json'], commandEnv(sandbox, prefix));
    expect(good.code).toBe(0);
    const report = JSON.parse(good.stdout) as { ok: boolean; operations: CheckedOperation[] };
    expect(Object.keys(report)).toEqual(['ok', 'operations']);
    expect(report.ok).toBe(true);
    for (const operation of report.operations)
      expect(operation).toEqual(
        expect.objectContaining({
          operation: expect.any(String),
          path: expect.any(String),
          verdict: expect.any(String),
          expected: expect.any(String),
          found: expect.any(String),
        }),
      );
    expect(good.stderr).toMatch(/Open API calls: \d+; GUESTY_RESERVATIONS_SURFACE=current, GUESTY_PAYMENT_METHODS_SURFACE=current/);

    sandbox.control.forceStatus('payments', 404);
    const bad = await runCommand(['--reservation', reservationId], commandEnv(sandbox, prefix));
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/CONTRADICTED listPayments\n {2}path: {5}GET \/payments\?reservationId=/);
    expect(bad.stdout).toMatch(/product: {2}answers 503 platform_answer_unexpected/);
    expect(bad.stdout).toMatch(/NOT OK/);

    // A mistyped id: no read knows it, and the report says so rather than blaming the surface alone.
    const unknown = await runCommand(['--reservation', 'res-nobody-knows'], commandEnv(sandbox, prefix));
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toMatch(/note: {5}the folio overview lists it in notFound too/);
    expectNoSecret(good.stdout + good.stderr + bad.stdout + bad.stderr);
  });

  it('stores the token it mints for the service, then spends at most 15 Open API calls and no token while one is held', async () => {
    const { reservationId } = await reservationFor('withCard');
    const fresh = testKeyPrefix();
    const minted = sandbox.control.counters.tokensMinted;
    expect((await runCommand(['--reservation', reservationId, '--json'], commandEnv(sandbox, fresh))).code).toBe(0);
    expect(sandbox.control.counters.tokensMinted).toBe(minted + 1);
    const before = sandbox.control.requestLog.length;
    const run = await runCommand(['--reservation', reservationId, '--json'], commandEnv(sandbox, fresh));
    expect(run.code).toBe(0);
    const calls = sandbox.control.requestLog.slice(before);
    expect(calls.filter((call) => call.route === 'token')).toEqual([]);
    expect(calls.length).toBeLessThanOrEqual(15);
    expect(run.stderr).toContain(`Open API calls: ${calls.length};`);
    expect(sandbox.control.counters.tokensMinted).toBe(minted + 1);
  });

  it('judges the legacy reads as the configured ones when the environment names the legacy surface', async () => {
    const legacy = await openCheck(
      testConfig({ ...pointedAtSandbox(sandbox.urls), ...ROOMY_BUDGET, REDIS_KEY_PREFIX: prefix, GUESTY_API_SURFACE: 'legacy' }),
      nowhere(),
    );
    try {
      const { reservationId } = await reservationFor('withCard');
      sandbox.control.setReadings({ legacyRoutes: 'served' });
      const served = await legacy.check.read(reservationId);
      const configured = served.operations.filter((operation) => operation.configured).map((operation) => operation.operation);
      expect(configured).toEqual(['getReservation (legacy)', 'listPaymentMethods (legacy)', 'getPaymentProvider']);
      expect(served.ok).toBe(true);
      sandbox.control.setReadings({ legacyRoutes: 'retired' });
      const retired = await legacy.check.read(reservationId);
      expect(retired.ok).toBe(false);
      expect(byName(retired.operations)['getReservation (legacy)']).toMatchObject({
        verdict: 'contradicted',
        found: '404: retired',
        productWill: expect.stringMatching(/set GUESTY_RESERVATIONS_SURFACE=current/),
      });
      expect(retired.choices.map((choice) => [choice.variable, choice.choose])).toEqual([
        ['GUESTY_RESERVATIONS_SURFACE', 'current'],
        ['GUESTY_PAYMENT_METHODS_SURFACE', 'current'],
      ]);
    } finally {
      await legacy.close();
    }
  });

  it.each([
    [['--json'], /--reservation <id> is required/],
    [['--write'], /--write needs --listing <id>/],
    [['--reservation', 'res-paid', '--colour'], /Unknown option '--colour'/],
    [
      ['--write', '--listing', 'lst-test'],
      /PLATFORM_CHECK_CARD must be number\|MM\|YYYY\|cvc/,
      { PLATFORM_CHECK_CARD: '4242424242424242|12' },
    ],
    [
      ['--reservation', 'res-paid'],
      /runs against the account: set GUESTY_CLIENT_ID/,
      { SANDBOX: 'true', GUESTY_CLIENT_ID: '', GUESTY_CLIENT_SECRET: '' },
    ],
  ] as [string[], RegExp, Record<string, string>?][])(
    'refuses %j with the reason and how to run it, sending nothing, writing nothing to Redis',
    async (args, reason, env = {}) => {
      const fresh = testKeyPrefix();
      const before = sandbox.control.requestLog.length;
      const refused = await runCommand(args, commandEnv(sandbox, fresh, env));
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(reason);
      expect(refused.stdout).toBe('');
      expect(sandbox.control.requestLog.slice(before)).toEqual([]);
      expect(await redis.keys(`${fresh}*`)).toEqual([]);
      expectNoSecret(refused.stderr, '4242424242424242');
    },
  );

  /** Every reservation the check's guest holds, by status. */
  const checkGuestReservations = () =>
    sandbox.control.getGuestsByEmail(CHECK_GUEST).flatMap((guest) => sandbox.control.getGuestReservations(guest._id as string));

  it('--write books a whole guest booking on the isTest listing, confirms it, cancels it, and leaves nothing reserved', async () => {
    const card = '5555555555554444';
    const run = await runCommand(
      ['--write', '--listing', 'lst-test', '--json'],
      commandEnv(sandbox, prefix, { PLATFORM_CHECK_CARD: `${card}|12|${new Date().getUTCFullYear() + 2}|123` }),
    );
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as { ok: boolean; operations: (CheckedOperation & { write?: boolean })[] };
    expect(report.operations.map((operation) => [operation.operation, operation.verdict])).toEqual([
      ['quote', 'confirmed'],
      ['guest and held reservation', 'confirmed'],
      ['card tokenized and attached', 'confirmed'],
      ['confirmed', 'confirmed'],
      ['cancelled (cleanup)', 'confirmed'],
    ]);
    const reservations = checkGuestReservations();
    expect(reservations.length).toBeGreaterThan(0);
    expect(reservations.every((reservation) => reservation.listingId === 'lst-test' && reservation.status === 'canceled')).toBe(true);
    expectNoSecret(run.stdout + run.stderr, card);
  });

  it('--write refuses a listing the platform does not mark isTest, writing nothing', async () => {
    const before = sandbox.control.requestLog.length;
    const run = await runCommand(['--write', '--listing', 'lst-seaside'], commandEnv(sandbox, prefix));
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/does not mark listing lst-seaside isTest.*nothing was written/);
    const routes = sandbox.control.requestLog.slice(before).map((entry) => entry.route);
    expect(routes.filter((route) => WRITES.includes(route as SandboxRoute))).toEqual([]);
  });

  it('--write cleans up after a failure in the middle: the attach refused, the held reservation is canceled', async () => {
    const before = new Set(checkGuestReservations().map((reservation) => reservation._id));
    sandbox.control.forceStatus('paymentMethods', 400, { body: { message: 'The payment method could not be added' } });
    const run = await runCommand(['--write', '--listing', 'lst-test', '--json'], commandEnv(sandbox, prefix));
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as { ok: boolean; operations: CheckedOperation[] };
    expect(report.ok).toBe(false);
    const steps = byName(report.operations);
    expect(steps['guest and held reservation'].verdict).toBe('confirmed');
    expect(steps['card tokenized and attached'].verdict).not.toBe('confirmed');
    expect(steps.confirmed).toBeUndefined();
    expect(steps['cancelled (cleanup)']).toMatchObject({ verdict: 'confirmed', found: expect.stringMatching(/canceled$/) });
    const made = checkGuestReservations().filter((reservation) => !before.has(reservation._id));
    expect(made).toHaveLength(1);
    expect(made[0].status).toBe('canceled');
    expectNoSecret(run.stdout + run.stderr);
  });
});
