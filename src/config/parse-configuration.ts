import { AppConfig, BOOKING_HOLDS, ExtraDefinition, LogLevel, RateLimit } from './app-config';
import { isInvoiceItemNormalType, secondIdentifierProblem } from './invoice-item-rules';
import { isClusterUrl, parseClusterUrl } from './redis-address';
import { timingProblems } from './timing-rules';

/** The platform's surface the service calls unless told otherwise: the one that stays after 2027-03-01. */
export const DEFAULT_API_SURFACE = 'current';

export type Environment = Readonly<Record<string, string | undefined>>;

/** Thrown with every problem found, one line each; messages name variables, never secret values. */
export class ConfigurationError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.join('\n')}`);
  }
}

const LOG_LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const WINDOW_MS = { s: 1_000, m: 60_000, h: 3_600_000 } as const;
const RATE_PATTERN = /^(\d+)\/([smh])$/;
const EXTRA_CODE_PATTERN = /^[A-Za-z0-9_-]{1,40}$/;

/** Collects problems instead of stopping at the first, so one start shows them all. */
class EnvironmentReader {
  readonly problems: string[] = [];

  constructor(private readonly env: Environment) {}

  text(name: string): string | undefined {
    const value = this.env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  }

  problem(name: string, message: string): void {
    this.problems.push(`${name} ${message}`);
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const raw = this.text(name);
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      this.problem(name, `must be a whole number from ${min} to ${max}`);
      return fallback;
    }
    return Number(raw);
  }

  boolean(name: string, fallback: boolean): boolean {
    const raw = this.text(name)?.toLowerCase();
    if (raw === undefined) return fallback;
    if (raw === 'true' || raw === '1') return true;
    if (raw === 'false' || raw === '0') return false;
    this.problem(name, 'must be true or false');
    return fallback;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const raw = this.text(name);
    if (raw === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(raw)) {
      this.problem(name, `must be one of: ${allowed.join(', ')}`);
      return fallback;
    }
    return raw as T;
  }

  /** An http(s) base URL without query or fragment; the trailing slash is dropped. */
  httpUrl(name: string, fallback: string | undefined, opts: { httpsOnly?: boolean } = {}): string | undefined {
    const raw = this.text(name);
    if (raw === undefined) return fallback;
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      this.problem(name, 'must be an absolute http(s) URL');
      return fallback;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      this.problem(name, 'must be an http:// or https:// URL');
      return fallback;
    }
    if (opts.httpsOnly && url.protocol !== 'https:') {
      this.problem(name, 'must be an https:// URL in production');
      return fallback;
    }
    if (url.username || url.password || url.search || url.hash) {
      this.problem(name, 'must not carry credentials, a query or a fragment');
      return fallback;
    }
    return raw.replace(/\/+$/, '');
  }

  rate(name: string, fallback: string): RateLimit {
    const raw = this.text(name) ?? fallback;
    const parsed = parseRate(raw);
    if (!parsed) {
      this.problem(name, 'must look like 60/m (a positive count per s, m or h)');
      return parseRate(fallback) as RateLimit;
    }
    return parsed;
  }

  rates(name: string, fallback: string): RateLimit[] {
    const raw = this.text(name) ?? fallback;
    const parts = raw.split(',').map((part) => parseRate(part.trim()));
    if (parts.length === 0 || parts.some((part) => part === null)) {
      this.problem(name, 'must be a comma-separated list like 15/s,120/m,5000/h');
      return fallback.split(',').map((part) => parseRate(part) as RateLimit);
    }
    return parts as RateLimit[];
  }
}

export function parseRate(text: string): RateLimit | null {
  const match = RATE_PATTERN.exec(text);
  if (!match || Number(match[1]) < 1) return null;
  return { limit: Number(match[1]), windowMs: WINDOW_MS[match[2] as keyof typeof WINDOW_MS], text };
}

function parseRedisUrl(read: EnvironmentReader): string | undefined {
  const raw = read.text('REDIS_URL');
  if (raw === undefined) return undefined;
  if (isClusterUrl(raw)) {
    const { problems } = parseClusterUrl(raw);
    for (const problem of problems) read.problem('REDIS_URL', problem);
    return problems.length === 0 ? raw : undefined;
  }
  try {
    const url = new URL(raw);
    if ((url.protocol === 'redis:' || url.protocol === 'rediss:') && url.hostname) return raw;
  } catch {
    // reported below, without echoing the value: it may hold a password
  }
  read.problem(
    'REDIS_URL',
    'must be a redis:// or rediss:// URL with a host, or redis+cluster://host:port,host:port (rediss+cluster:// for TLS)',
  );
  return undefined;
}

function parseCorsOrigins(read: EnvironmentReader): string[] {
  const raw = read.text('CORS_ORIGINS');
  if (raw === undefined) return [];
  const origins: string[] = [];
  for (const entry of raw
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    let origin: string | null = null;
    try {
      const url = new URL(entry);
      const isOrigin = (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === entry.replace(/\/$/, '');
      origin = isOrigin ? url.origin : null;
    } catch {
      origin = null;
    }
    if (origin === null) {
      read.problem(
        'CORS_ORIGINS',
        `entries must be exact origins like https://booking.example.com ('*' and paths are not allowed): ${JSON.stringify(entry.slice(0, 80))}`,
      );
    } else {
      origins.push(origin);
    }
  }
  return origins;
}

function parseExtras(read: EnvironmentReader): ExtraDefinition[] {
  const raw = read.text('CHECKOUT_EXTRAS');
  if (raw === undefined) return [];
  // Checked for the endpoint the items will be sent to (INVOICE_ITEMS_ENDPOINT, itself checked below).
  const endpoint = read.text('INVOICE_ITEMS_ENDPOINT') === 'deprecated' ? 'deprecated' : 'current';
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    read.problem('CHECKOUT_EXTRAS', 'must be valid JSON (an array of extras)');
    return [];
  }
  if (!Array.isArray(parsed)) {
    read.problem('CHECKOUT_EXTRAS', 'must be a JSON array of extras');
    return [];
  }
  const extras: ExtraDefinition[] = [];
  const seen = new Set<string>();
  parsed.forEach((entry: unknown, index) => {
    const where = `CHECKOUT_EXTRAS[${index}]`;
    const problemsBefore = read.problems.length;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      read.problem(where, 'must be an object');
      return;
    }
    const item = entry as Record<string, unknown>;
    const allowed = ['code', 'normalType', 'title', 'amount', 'secondIdentifier', 'description'];
    for (const key of Object.keys(item)) {
      if (!allowed.includes(key)) read.problem(where, `has an unknown field "${key}"`);
    }
    if (typeof item.code !== 'string' || !EXTRA_CODE_PATTERN.test(item.code)) {
      read.problem(where, 'code must be 1-40 letters, digits, "_" or "-"');
    } else if (seen.has(item.code)) {
      read.problem(where, `code "${item.code}" is listed twice`);
    }
    if (!isInvoiceItemNormalType(item.normalType))
      read.problem(where, 'normalType must be one of the invoice-item types (AF is not allowed)');
    if (typeof item.title !== 'string' || item.title.trim() === '' || item.title.length > 200)
      read.problem(where, 'title must be a non-empty string');
    if (typeof item.amount !== 'number' || !Number.isFinite(item.amount) || item.amount <= 0)
      read.problem(where, 'amount must be a positive number');
    for (const key of ['secondIdentifier', 'description'] as const) {
      if (item[key] !== undefined && typeof item[key] !== 'string') read.problem(where, `${key} must be a string`);
    }
    if (typeof item.normalType === 'string') {
      const pairProblem = secondIdentifierProblem(item.normalType, item.secondIdentifier as string | undefined, endpoint);
      if (pairProblem) read.problem(where, pairProblem);
    }
    if (read.problems.length === problemsBefore) {
      seen.add(item.code as string);
      extras.push(item as unknown as ExtraDefinition);
    }
  });
  return extras;
}

/** BOOKING_SOURCE: written on every quote and reservation, so a short plain word. */
function parseBookingSource(read: EnvironmentReader): string {
  const source = read.text('BOOKING_SOURCE') ?? 'website';
  if (!/^[A-Za-z0-9 ._-]{1,40}$/.test(source)) {
    read.problem('BOOKING_SOURCE', 'must be 1-40 letters, digits, spaces or "._-"');
    return 'website';
  }
  return source;
}

/** Reads and validates every variable of docs/product-spec.md §2; throws ConfigurationError listing all problems. */
export function parseConfiguration(env: Environment): AppConfig {
  const read = new EnvironmentReader(env);
  const nodeEnv = read.text('NODE_ENV') ?? 'development';
  const production = nodeEnv === 'production';

  const port = read.integer('PORT', 3000, 0, 65535);
  const publicBaseUrl = read.httpUrl('PUBLIC_BASE_URL', undefined, { httpsOnly: production }) ?? `http://localhost:${port}`;
  const clientId = read.text('GUESTY_CLIENT_ID');
  const clientSecret = read.text('GUESTY_CLIENT_SECRET');
  if ((clientId === undefined) !== (clientSecret === undefined)) {
    read.problem(
      clientId === undefined ? 'GUESTY_CLIENT_ID' : 'GUESTY_CLIENT_SECRET',
      'must be set together with its pair (GUESTY_CLIENT_ID and GUESTY_CLIENT_SECRET)',
    );
  }
  const hasCredentials = clientId !== undefined && clientSecret !== undefined;

  const sandboxSetting = read.oneOf('SANDBOX', ['auto', 'true', 'false'] as const, 'auto');
  const sandbox = sandboxSetting === 'true' || (sandboxSetting === 'auto' && !hasCredentials && !production);
  if (production && sandboxSetting === 'true') read.problem('SANDBOX', 'cannot be true in production');
  if (!sandbox && !hasCredentials) {
    read.problem(
      'GUESTY_CLIENT_ID',
      production ? 'and GUESTY_CLIENT_SECRET are required in production' : 'and GUESTY_CLIENT_SECRET are required when SANDBOX=false',
    );
  }

  const apiUrl = read.httpUrl('GUESTY_API_URL', 'https://open-api.guesty.com', { httpsOnly: production }) as string;
  const authUrl = read.httpUrl('GUESTY_AUTH_URL', apiUrl, { httpsOnly: production }) as string;
  const payUrl = read.httpUrl('GUESTY_PAY_URL', 'https://pay.guesty.com', { httpsOnly: production }) as string;

  const redisUrl = parseRedisUrl(read);
  if (production && redisUrl === undefined && read.text('REDIS_URL') === undefined) {
    read.problem('REDIS_URL', 'is required in production (replicas share tokens, sessions and limits through it)');
  }
  const keyPrefix = read.text('REDIS_KEY_PREFIX') ?? 'checkout:';
  if (!/^[A-Za-z0-9:_{}.-]{1,64}$/.test(keyPrefix)) read.problem('REDIS_KEY_PREFIX', 'must be 1-64 letters, digits or ":_{}.-"');
  // An empty "{}" before the keys' own hash tags would make a cluster hash whole keys, scattering
  // the keys one script uses over several slots.
  else if (redisUrl !== undefined && isClusterUrl(redisUrl) && keyPrefix.includes('{}')) {
    read.problem('REDIS_KEY_PREFIX', 'must not contain an empty hash tag "{}" with a Redis Cluster');
  }

  const returnUrl = read.httpUrl('CHECKOUT_RETURN_URL', sandbox ? `${publicBaseUrl}/demo` : undefined, { httpsOnly: production });
  if (returnUrl === undefined && read.text('CHECKOUT_RETURN_URL') === undefined) {
    read.problem('CHECKOUT_RETURN_URL', 'is required outside sandbox mode (the site page guests return to after 3-D Secure)');
  }

  const config: AppConfig = {
    runtime: { nodeEnv, production, sandbox },
    http: {
      port,
      publicBaseUrl,
      trustProxy: read.integer('TRUST_PROXY', 0, 0, 10),
      corsOrigins: parseCorsOrigins(read),
      docsEnabled: read.boolean('DOCS_ENABLED', true),
      bodyLimitBytes: 32 * 1024,
      shutdownDelayMs: read.integer('SHUTDOWN_DELAY_MS', 0, 0, 60_000),
      shutdownDrainMs: read.integer('SHUTDOWN_DRAIN_MS', 10_000, 0, 120_000),
    },
    guesty: {
      clientId,
      clientSecret,
      apiUrl,
      authUrl,
      payUrl,
      invoiceItemsEndpoint: read.oneOf('INVOICE_ITEMS_ENDPOINT', ['current', 'deprecated'] as const, 'current'),
      apiSurface: read.oneOf('GUESTY_API_SURFACE', ['current', 'legacy'] as const, DEFAULT_API_SURFACE),
      webhookSecret: webhookSecret(read),
      tokenCredentials: read.oneOf('GUESTY_TOKEN_CREDENTIALS', ['basic', 'body'] as const, 'basic'),
      tokensPerDay: read.integer('GUESTY_TOKENS_PER_DAY', 5, 1, 100),
      tokenReserve: read.integer('GUESTY_TOKEN_RESERVE', 1, 0, 99),
      requestTimeoutMs: read.integer('UPSTREAM_TIMEOUT_MS', 8_000, 100, 60_000),
      callDeadlineMs: read.integer('UPSTREAM_DEADLINE_MS', 10_000, 500, 120_000),
    },
    redis: {
      url: redisUrl,
      keyPrefix,
      waitReplicas: read.integer('REDIS_WAIT_REPLICAS', 0, 0, 10),
      waitTimeoutMs: read.integer('REDIS_WAIT_TIMEOUT_MS', 500, 10, 900),
    },
    checkout: {
      returnUrl: returnUrl ?? '',
      extras: parseExtras(read),
      sessionTtlSeconds: read.integer('CHECKOUT_SESSION_TTL_SECONDS', 3600, 60, 86_400),
      ipRateLimit: read.rate('CHECKOUT_IP_RATE_LIMIT', '60/m'),
      cardAttempts: read.rate('CHECKOUT_CARD_ATTEMPTS', '10/h'),
      sessionsPerReservation: read.rate('CHECKOUT_SESSIONS_PER_RESERVATION', '5/h'),
      reservationMissesPerIp: read.rate('CHECKOUT_RESERVATION_MISSES_PER_IP', '3/h'),
    },
    upstreamRateLimits: read.rates('UPSTREAM_RATE_LIMITS', '15/s,120/m,5000/h'),
    reservationWrites: {
      spacingMs: read.integer('RESERVATION_WRITE_SPACING_MS', 1_500, 0, 60_000),
      leaseMs: read.integer('RESERVATION_LEASE_MS', 10_000, 1, 120_000),
      settleMs: read.integer('WRITE_SETTLE_SECONDS', 120, 1, 86_400) * 1000,
      // The sandbox's platform starts with the process: nothing sent before it can land.
      holdOnNewStore: read.boolean('WRITE_HOLD_ON_NEW_STORE', !sandbox),
    },
    admin: { apiKey: read.text('ADMIN_API_KEY') },
    logging: { level: read.oneOf('LOG_LEVEL', LOG_LEVELS, 'info'), pretty: read.boolean('LOG_PRETTY', !production && nodeEnv !== 'test') },
    budget: {
      anonymousSharePercent: read.integer('UPSTREAM_ANONYMOUS_SHARE', 50, 0, 100),
      ipReadLimit: read.rate('CHECKOUT_IP_READ_LIMIT', '120/m'),
      paymentStatusRefreshSeconds: read.integer('PAYMENT_STATUS_REFRESH_SECONDS', 10, 1, 3600),
    },
    booking: {
      calendarCacheSeconds: read.integer('CALENDAR_CACHE_SECONDS', 300, 1, 86_400),
      quoteReuseSeconds: read.integer('QUOTE_REUSE_SECONDS', 300, 0, 86_400),
      source: parseBookingSource(read),
      hold: read.oneOf('BOOKING_HOLD', BOOKING_HOLDS, '30m'),
      confirmation: read.oneOf('BOOKING_CONFIRMATION', ['instant', 'request'] as const, 'instant'),
      holdsPerIp: read.rate('BOOKING_HOLDS_PER_IP', '3/h'),
      unpaidHoldsPerListing: read.integer('BOOKING_UNPAID_HOLDS_PER_LISTING', 5, 1, 1_000_000),
      maxNights: read.integer('BOOKING_MAX_NIGHTS', 31, 1, 365),
    },
  };
  if (config.guesty.tokenReserve >= config.guesty.tokensPerDay) {
    read.problem('GUESTY_TOKEN_RESERVE', 'must be smaller than GUESTY_TOKENS_PER_DAY');
  }
  for (const problem of timingProblems({
    requestTimeoutMs: config.guesty.requestTimeoutMs,
    callDeadlineMs: config.guesty.callDeadlineMs,
    reservationLeaseMs: config.reservationWrites.leaseMs,
    writeSettleMs: config.reservationWrites.settleMs,
  })) {
    read.problems.push(problem);
  }
  if (config.redis.waitReplicas > 0 && (config.redis.url === undefined || isClusterUrl(config.redis.url))) {
    read.problem(
      'REDIS_WAIT_REPLICAS',
      'needs one Redis primary (REDIS_URL redis:// or rediss://): a Redis Cluster or no Redis has no replicas to wait for',
    );
  }
  if (config.admin.apiKey !== undefined && config.admin.apiKey.length < 16) {
    read.problem('ADMIN_API_KEY', 'must be at least 16 characters');
  }
  if (read.problems.length > 0) throw new ConfigurationError(read.problems);
  return config;
}

/** GUESTY_WEBHOOK_SECRET: the Svix secret, `whsec_` and its base64 key (never echoed in a problem). */
function webhookSecret(read: EnvironmentReader): string | undefined {
  const secret = read.text('GUESTY_WEBHOOK_SECRET');
  if (secret === undefined) return undefined;
  if (!/^whsec_[A-Za-z0-9+/]{16,}={0,2}$/.test(secret))
    read.problem('GUESTY_WEBHOOK_SECRET', 'must be the subscription secret: whsec_ followed by its base64 key');
  return secret;
}
