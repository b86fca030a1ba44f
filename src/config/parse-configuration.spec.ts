import { ConfigurationError, parseConfiguration } from './parse-configuration';

function problemsOf(env: Record<string, string>): string[] {
  try {
    parseConfiguration(env);
  } catch (error) {
    if (error instanceof ConfigurationError) return error.problems;
    throw error;
  }
  return [];
}

const PRODUCTION = {
  NODE_ENV: 'production',
  GUESTY_CLIENT_ID: 'id',
  GUESTY_CLIENT_SECRET: 'secret-value',
  PUBLIC_BASE_URL: 'https://checkout.example.com',
  CHECKOUT_RETURN_URL: 'https://booking.example.com/done',
  REDIS_URL: 'rediss://cache.example.com:6380',
};

describe('parseConfiguration', () => {
  it('runs in sandbox mode with the documented defaults when nothing is set', () => {
    const config = parseConfiguration({});
    expect(config.runtime).toEqual({ nodeEnv: 'development', production: false, sandbox: true });
    expect(config.http).toMatchObject({
      port: 3000,
      publicBaseUrl: 'http://localhost:3000',
      trustProxy: 0,
      corsOrigins: [],
      embedOrigins: [],
      docsEnabled: true,
    });
    expect(config.redis).toEqual({ url: undefined, keyPrefix: 'checkout:', waitReplicas: 'auto', waitTimeoutMs: 500 });
    expect(config.checkout.returnUrl).toBe('http://localhost:3000/demo/reference');
    expect(config.checkout.ipRateLimit).toEqual({ limit: 60, windowMs: 60_000, text: '60/m' });
    expect(config.checkout.reservationMissesPerIp).toEqual({ limit: 3, windowMs: 3_600_000, text: '3/h' });
    expect(config.upstreamRateLimits.map((rate) => [rate.limit, rate.windowMs])).toEqual([
      [15, 1000],
      [120, 60_000],
      [5000, 3_600_000],
    ]);
    expect(config.guesty).toMatchObject({
      apiUrl: 'https://open-api.guesty.com',
      authUrl: 'https://open-api.guesty.com',
      payUrl: 'https://pay.guesty.com',
      invoiceItemsEndpoint: 'current',
      reservationsSurface: 'current',
      paymentMethodsSurface: 'current',
    });
  });

  it('spaces and leases reservation writes by default (docs/product-spec.md §2, §6.3)', () => {
    expect(parseConfiguration({}).reservationWrites).toEqual({
      spacingMs: 1_500,
      leaseMs: 10_000,
      settleMs: 120_000,
      holdOnNewStore: false,
    });
  });

  it('holds writes on a new store outside the sandbox, and asks replicas for acknowledgements only of one primary', () => {
    const production = {
      SANDBOX: 'false',
      GUESTY_CLIENT_ID: 'id',
      GUESTY_CLIENT_SECRET: 'secret',
      CHECKOUT_RETURN_URL: 'http://localhost/done',
    };
    expect(parseConfiguration(production).reservationWrites.holdOnNewStore).toBe(true);
    expect(parseConfiguration({ ...production, WRITE_HOLD_ON_NEW_STORE: 'false' }).reservationWrites.holdOnNewStore).toBe(false);
    expect(problemsOf({ REDIS_WAIT_REPLICAS: '1', REDIS_URL: 'redis+cluster://127.0.0.1:7000' })).toEqual([
      expect.stringMatching(/^REDIS_WAIT_REPLICAS needs one Redis primary/),
    ]);
    expect(problemsOf({ REDIS_WAIT_REPLICAS: '1', REDIS_URL: 'redis://127.0.0.1:6379' })).toEqual([]);
  });

  it('waits for a replica by default, and lets the operator opt out only in words (REDIS_WAIT_REPLICAS)', () => {
    const waitOf = (env: Record<string, string>) => parseConfiguration(env).redis.waitReplicas;
    expect(waitOf({ REDIS_URL: 'redis://127.0.0.1:6379' })).toBe('auto');
    // auto asks nothing of a Cluster or of the in-process store, so it is good everywhere.
    expect(waitOf({ REDIS_WAIT_REPLICAS: 'auto', REDIS_URL: 'redis+cluster://127.0.0.1:7000' })).toBe('auto');
    expect(waitOf({ REDIS_WAIT_REPLICAS: 'OFF' })).toBe('off');
    expect(waitOf({ REDIS_WAIT_REPLICAS: '2', REDIS_URL: 'redis://127.0.0.1:6379' })).toBe(2);
    expect(problemsOf({ REDIS_WAIT_REPLICAS: '0', REDIS_URL: 'redis://127.0.0.1:6379' })).toEqual([
      'REDIS_WAIT_REPLICAS=0 is refused: write REDIS_WAIT_REPLICAS=off if you accept that a Redis failover may take a second card (the default, auto, waits for one replica where the Redis has any)',
    ]);
    for (const text of ['-1', '11', 'yes', '1.5'])
      expect(problemsOf({ REDIS_WAIT_REPLICAS: text })).toEqual(['REDIS_WAIT_REPLICAS must be auto, off or a whole number from 1 to 10']);
  });

  it('refuses a settle horizon that a write may outlive, naming the variable and what it must exceed', () => {
    // 1.5 × 10 s deadline + 8 s timeout + 10 s lease + 2 s margin = 35 s.
    expect(problemsOf({ WRITE_SETTLE_SECONDS: '35' })).toEqual([
      expect.stringMatching(
        /^WRITE_SETTLE_SECONDS must exceed 35 s: a write may leave until UPSTREAM_DEADLINE_MS × 1.5 \+ UPSTREAM_TIMEOUT_MS/,
      ),
    ]);
    expect(problemsOf({ WRITE_SETTLE_SECONDS: '36' })).toEqual([]);
    expect(problemsOf({ WRITE_SETTLE_SECONDS: '60', RESERVATION_LEASE_MS: '40000' })).toEqual([
      expect.stringMatching(/^WRITE_SETTLE_SECONDS must exceed 65 s/),
    ]);
  });

  it('refuses timeouts that would let the mint lock lapse under a running token request, naming the variable', () => {
    const problems = problemsOf({ UPSTREAM_TIMEOUT_MS: '18000' });
    expect(problems).toEqual([
      expect.stringMatching(/^UPSTREAM_TIMEOUT_MS must be at most 15000 ms: the token mint lock \(20000 ms\) would lapse/),
    ]);
    expect(problemsOf({ UPSTREAM_TIMEOUT_MS: '15000' })).toEqual([]);
  });

  it('refuses a reservation lease too short to survive one slow renewal', () => {
    expect(problemsOf({ RESERVATION_LEASE_MS: '200' })).toEqual([expect.stringMatching(/^RESERVATION_LEASE_MS must be at least 500 ms/)]);
    expect(problemsOf({ RESERVATION_WRITE_SPACING_MS: '-1' })).toEqual([
      expect.stringMatching(/^RESERVATION_WRITE_SPACING_MS must be a whole number/),
    ]);
  });

  it('refuses a bound on unpaid nights per listing that the longest stay online would not fit', () => {
    expect(problemsOf({ BOOKING_UNPAID_NIGHTS_PER_LISTING: '20' })).toEqual([
      expect.stringMatching(/^BOOKING_UNPAID_NIGHTS_PER_LISTING must be at least BOOKING_MAX_NIGHTS/),
    ]);
    expect(problemsOf({ BOOKING_UNPAID_NIGHTS_PER_LISTING: '20', BOOKING_MAX_NIGHTS: '20' })).toEqual([]);
  });

  it('accepts a complete production configuration and leaves sandbox off', () => {
    const config = parseConfiguration(PRODUCTION);
    expect(config.runtime.sandbox).toBe(false);
    expect(config.logging.pretty).toBe(false);
  });

  it('chooses the surface of reservations and of payment methods each on its own, GUESTY_API_SURFACE setting both', () => {
    const surfaces = (env: Record<string, string>) => {
      const { reservationsSurface, paymentMethodsSurface } = parseConfiguration(env).guesty;
      return [reservationsSurface, paymentMethodsSurface];
    };
    expect(surfaces({})).toEqual(['current', 'current']);
    expect(surfaces({ GUESTY_API_SURFACE: 'legacy' })).toEqual(['legacy', 'legacy']);
    expect(surfaces({ GUESTY_PAYMENT_METHODS_SURFACE: 'legacy' })).toEqual(['current', 'legacy']);
    expect(surfaces({ GUESTY_API_SURFACE: 'legacy', GUESTY_RESERVATIONS_SURFACE: 'current' })).toEqual(['current', 'legacy']);
    expect(problemsOf({ GUESTY_PAYMENT_METHODS_SURFACE: 'old' })).toEqual([
      expect.stringMatching(/^GUESTY_PAYMENT_METHODS_SURFACE must be one of/),
    ]);
  });

  it('refuses the legacy reservation reads from the day the platform retires them, and keeps the legacy payment methods', () => {
    jest.useFakeTimers({ now: Date.UTC(2027, 2, 1) });
    try {
      expect(problemsOf({ GUESTY_API_SURFACE: 'legacy' })).toEqual([
        expect.stringMatching(/^GUESTY_API_SURFACE=legacy: the platform retired/),
      ]);
      expect(problemsOf({ GUESTY_RESERVATIONS_SURFACE: 'legacy' })).toEqual([
        expect.stringMatching(/^GUESTY_RESERVATIONS_SURFACE=legacy: the platform retired/),
      ]);
      expect(problemsOf({ GUESTY_API_SURFACE: 'legacy', GUESTY_RESERVATIONS_SURFACE: 'current' })).toEqual([]);
      expect(problemsOf({ GUESTY_PAYMENT_METHODS_SURFACE: 'legacy' })).toEqual([]);
    } finally {
      jest.useRealTimers();
    }
    expect(problemsOf({ GUESTY_API_SURFACE: 'legacy' })).toEqual([]);
  });

  it('refuses http upstream or public URLs in production', () => {
    expect(problemsOf({ ...PRODUCTION, GUESTY_API_URL: 'http://open-api.example.com' })).toEqual([
      'GUESTY_API_URL must be an https:// URL in production',
    ]);
  });

  it('requires a return URL outside sandbox mode', () => {
    expect(problemsOf({ GUESTY_CLIENT_ID: 'id', GUESTY_CLIENT_SECRET: 'secret' })[0]).toMatch(/^CHECKOUT_RETURN_URL is required/);
  });

  it('parses CORS origins exactly and refuses wildcards and paths', () => {
    expect(parseConfiguration({ CORS_ORIGINS: 'https://a.example.com, http://localhost:8080' }).http.corsOrigins).toEqual([
      'https://a.example.com',
      'http://localhost:8080',
    ]);
    expect(problemsOf({ CORS_ORIGINS: 'https://a.example.com/path' })[0]).toMatch(/^CORS_ORIGINS/);
  });

  it('lets the CORS origins frame the drop-in checkout unless EMBED_ORIGINS names others, and refuses a wildcard there too', () => {
    expect(parseConfiguration({ CORS_ORIGINS: 'https://a.example.com' }).http.embedOrigins).toEqual(['https://a.example.com']);
    expect(parseConfiguration({ CORS_ORIGINS: 'https://a.example.com', EMBED_ORIGINS: 'https://b.example.com' }).http.embedOrigins).toEqual(
      ['https://b.example.com'],
    );
    expect(problemsOf({ EMBED_ORIGINS: '*' })[0]).toMatch(/^EMBED_ORIGINS/);
  });

  it('validates the extras catalogue against the invoice-item rules', () => {
    const good = [{ code: 'late-checkout', normalType: 'AFE', secondIdentifier: 'LATE_CHECKOUT', title: 'Late checkout', amount: 40 }];
    expect(parseConfiguration({ CHECKOUT_EXTRAS: JSON.stringify(good) }).checkout.extras).toEqual(good);
    const problems = problemsOf({
      CHECKOUT_EXTRAS: JSON.stringify([
        { code: 'a', normalType: 'AF', title: 'Fare', amount: 10 },
        { code: 'b', normalType: 'AFE', title: 'Pet', amount: 10 },
        { code: 'c', normalType: 'CF', title: 'Cleaning', amount: -1, secondIdentifier: 'CLEANING' },
        { code: 'c', normalType: 'CF', title: 'Twice', amount: 1 },
      ]),
    });
    expect(problems).toEqual([
      'CHECKOUT_EXTRAS[0] normalType must be one of the invoice-item types (AF is not allowed)',
      'CHECKOUT_EXTRAS[1] secondIdentifier is required when normalType is AFE',
      'CHECKOUT_EXTRAS[2] amount must be a positive number',
      'CHECKOUT_EXTRAS[2] secondIdentifier is only allowed when normalType is AFE',
    ]);
  });

  it("refuses at start a catalogue whose secondIdentifier is not one of the reference's values", () => {
    const towels = [{ code: 'towels', normalType: 'AFE', secondIdentifier: 'TOWELS_EXTRA', title: 'Towels', amount: 8 }];
    expect(problemsOf({ CHECKOUT_EXTRAS: JSON.stringify(towels) })).toEqual([
      expect.stringMatching(/^CHECKOUT_EXTRAS\[0\] secondIdentifier "TOWELS_EXTRA" is not one of the platform's values/),
    ]);
  });

  it('with INVOICE_ITEMS_ENDPOINT=deprecated, refuses at start a catalogue item without secondIdentifier, and takes one on any normalType', () => {
    const items = [
      { code: 'late', normalType: 'CF', title: 'Late checkout', amount: 40 },
      { code: 'towels', normalType: 'CF', secondIdentifier: 'TOWELS', title: 'Towels', amount: 8 },
    ];
    expect(problemsOf({ INVOICE_ITEMS_ENDPOINT: 'deprecated', CHECKOUT_EXTRAS: JSON.stringify(items) })).toEqual([
      expect.stringMatching(/^CHECKOUT_EXTRAS\[0\] secondIdentifier is required on every item.*INVOICE_ITEMS_ENDPOINT=deprecated/),
    ]);
    expect(
      parseConfiguration({ INVOICE_ITEMS_ENDPOINT: 'deprecated', CHECKOUT_EXTRAS: JSON.stringify(items.slice(1)) }).checkout.extras,
    ).toEqual(items.slice(1));
  });

  it('refuses malformed rates, booleans and enums with the variable named', () => {
    expect(
      problemsOf({ UPSTREAM_RATE_LIMITS: '15/s,lots', DOCS_ENABLED: 'maybe', INVOICE_ITEMS_ENDPOINT: 'v2', TRUST_PROXY: '-1' }),
    ).toEqual([
      'TRUST_PROXY must be a whole number from 0 to 10',
      'DOCS_ENABLED must be true or false',
      'INVOICE_ITEMS_ENDPOINT must be one of: current, deprecated',
      'UPSTREAM_RATE_LIMITS must be a comma-separated list like 15/s,120/m,5000/h',
    ]);
  });

  it('reads the allowance of reservation misses per client network, and names a malformed one', () => {
    expect(parseConfiguration({ CHECKOUT_RESERVATION_MISSES_PER_IP: '10/m' }).checkout.reservationMissesPerIp).toEqual({
      limit: 10,
      windowMs: 60_000,
      text: '10/m',
    });
    expect(problemsOf({ CHECKOUT_RESERVATION_MISSES_PER_IP: '0/h' })).toEqual([
      'CHECKOUT_RESERVATION_MISSES_PER_IP must look like 60/m (a positive count per s, m or h)',
    ]);
  });

  it('accepts a Redis Cluster URL and names each problem of a bad one without echoing it', () => {
    const cluster = 'rediss+cluster://app:pw-123@node-a.example.com:6380,node-b.example.com:6380';
    expect(parseConfiguration({ ...PRODUCTION, REDIS_URL: cluster }).redis.url).toBe(cluster);
    const problems = problemsOf({ REDIS_URL: 'redis+cluster://:pw-123@a:1,,b:99999/2' });
    expect(problems).toEqual([
      'REDIS_URL must not have a path, query or fragment after the cluster nodes (a cluster has database 0 only)',
      'REDIS_URL cluster node 2 of 3 must be host:port',
      'REDIS_URL cluster node 3 of 3 must be host:port',
    ]);
    expect(problemsOf({ REDIS_URL: 'redis+cluster://a:1', REDIS_KEY_PREFIX: 'x{}:' })).toEqual([
      'REDIS_KEY_PREFIX must not contain an empty hash tag "{}" with a Redis Cluster',
    ]);
  });

  it('never puts a secret value into a problem', () => {
    const problems = problemsOf({ GUESTY_CLIENT_SECRET: 'top-secret-value', REDIS_URL: 'redis//:pw-123@host', ADMIN_API_KEY: 'short-key' });
    expect(problems.join('\n')).not.toMatch(/top-secret-value|pw-123|short-key/);
    expect(problems.length).toBe(3);
  });
});
