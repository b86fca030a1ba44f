import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { AppConfig } from './app-config';
import { Environment, ENVIRONMENT_VARIABLES, LEGACY_RESERVATIONS_RETIRED_AT } from './environment';
import { isClusterUrl } from './redis-address';
import { timingProblems } from './timing-rules';

/** Thrown with every problem found, one line each; messages name variables, never secret values. */
export class ConfigurationError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.join('\n')}`);
  }
}

type Variables = Readonly<Record<string, string | undefined>>;

interface Runtime {
  production: boolean;
  sandbox: boolean;
  hasCredentials: boolean;
}

/**
 * Every variable of docs/product-spec.md §2 checked by the schema (environment.ts), then the rules
 * between variables; throws ConfigurationError with one line per problem. Shaped as @nestjs/config's
 * `validate`, but run by main.ts before Nest starts: the sandbox and the listener need the
 * configuration, and a refused start prints its lines, not Nest's error.
 */
export function validate(variables: Variables): AppConfig {
  const given: Record<string, string> = {};
  for (const name of ENVIRONMENT_VARIABLES) {
    const text = variables[name]?.trim();
    if (text) given[name] = text;
  }
  const env = plainToInstance(Environment, given);
  const errors = validateSync(env);
  const problems = errors.flatMap((error) => Object.values(error.constraints ?? {}).flatMap((message) => message.split('\n')));
  const defaults = new Environment();
  for (const { property } of errors) Object.assign(env, { [property]: defaults[property as keyof Environment] });

  const production = env.NODE_ENV === 'production';
  const hasCredentials = env.GUESTY_CLIENT_ID !== undefined && env.GUESTY_CLIENT_SECRET !== undefined;
  const sandbox = env.SANDBOX === 'true' || (env.SANDBOX === 'auto' && !hasCredentials && !production);
  const runtime = { production, sandbox, hasCredentials };
  problems.push(...rulesBetweenVariables(env, runtime, (name) => name in given));
  if (problems.length > 0) throw new ConfigurationError(problems);
  return appConfig(env, runtime);
}

/** The name main.ts, write-openapi.ts, the bench and the tests call `validate` by. */
export function parseConfiguration(variables: Variables): AppConfig {
  return validate(variables);
}

function rulesBetweenVariables(
  env: Environment,
  { production, sandbox, hasCredentials }: Runtime,
  isGiven: (name: string) => boolean,
): string[] {
  const problems: string[] = [];
  const problem = (refused: boolean, line: string) => {
    if (refused) problems.push(line);
  };
  const clientId = env.GUESTY_CLIENT_ID;
  problem(
    (clientId === undefined) !== (env.GUESTY_CLIENT_SECRET === undefined),
    `${clientId === undefined ? 'GUESTY_CLIENT_ID' : 'GUESTY_CLIENT_SECRET'} must be set together with its pair (GUESTY_CLIENT_ID and GUESTY_CLIENT_SECRET)`,
  );
  problem(production && env.SANDBOX === 'true', 'SANDBOX cannot be true in production');
  problem(
    !sandbox && !hasCredentials,
    `GUESTY_CLIENT_ID and GUESTY_CLIENT_SECRET are required ${production ? 'in production' : 'when SANDBOX=false'}`,
  );
  problem(
    production && !isGiven('REDIS_URL'),
    'REDIS_URL is required in production (replicas share tokens, sessions and limits through it)',
  );
  // An empty "{}" before the keys' own hash tags would make a cluster hash whole keys, scattering
  // the keys one script uses over several slots.
  problem(
    env.REDIS_URL !== undefined && isClusterUrl(env.REDIS_URL) && env.REDIS_KEY_PREFIX.includes('{}'),
    'REDIS_KEY_PREFIX must not contain an empty hash tag "{}" with a Redis Cluster',
  );
  problem(
    !sandbox && !isGiven('CHECKOUT_RETURN_URL'),
    'CHECKOUT_RETURN_URL is required outside sandbox mode (the site page guests return to after 3-D Secure)',
  );
  problem(
    (env.GUESTY_RESERVATIONS_SURFACE ?? env.GUESTY_API_SURFACE) === 'legacy' && Date.now() >= LEGACY_RESERVATIONS_RETIRED_AT,
    `${isGiven('GUESTY_RESERVATIONS_SURFACE') ? 'GUESTY_RESERVATIONS_SURFACE' : 'GUESTY_API_SURFACE'}=legacy: the platform retired the legacy reservation endpoints on 2027-03-01; use current (npm run platform:check shows whether it answers)`,
  );
  problem(
    env.BOOKING_UNPAID_NIGHTS_PER_LISTING < env.BOOKING_MAX_NIGHTS,
    'BOOKING_UNPAID_NIGHTS_PER_LISTING must be at least BOOKING_MAX_NIGHTS (a stay online must fit among the nights a listing holds unpaid)',
  );
  problem(env.GUESTY_TOKEN_RESERVE >= env.GUESTY_TOKENS_PER_DAY, 'GUESTY_TOKEN_RESERVE must be smaller than GUESTY_TOKENS_PER_DAY');
  problems.push(
    ...timingProblems({
      requestTimeoutMs: env.UPSTREAM_TIMEOUT_MS,
      callDeadlineMs: env.UPSTREAM_DEADLINE_MS,
      reservationLeaseMs: env.RESERVATION_LEASE_MS,
      writeSettleMs: env.WRITE_SETTLE_SECONDS * 1000,
    }),
  );
  problem(
    typeof env.REDIS_WAIT_REPLICAS === 'number' && (env.REDIS_URL === undefined || isClusterUrl(env.REDIS_URL)),
    'REDIS_WAIT_REPLICAS needs one Redis primary (REDIS_URL redis:// or rediss://): a Redis Cluster or no Redis has no replicas to wait for',
  );
  return problems;
}

/** The configuration the service reads, of a valid environment. */
function appConfig(env: Environment, { production, sandbox }: Runtime): AppConfig {
  const publicBaseUrl = env.PUBLIC_BASE_URL ?? `http://localhost:${env.PORT}`;
  return {
    runtime: { nodeEnv: env.NODE_ENV, production, sandbox },
    http: {
      port: env.PORT,
      publicBaseUrl,
      trustProxy: env.TRUST_PROXY,
      corsOrigins: env.CORS_ORIGINS,
      embedOrigins: env.EMBED_ORIGINS ?? env.CORS_ORIGINS,
      docsEnabled: env.DOCS_ENABLED,
      bodyLimitBytes: 32 * 1024,
      shutdownDelayMs: env.SHUTDOWN_DELAY_MS,
      shutdownDrainMs: env.SHUTDOWN_DRAIN_MS,
    },
    guesty: {
      clientId: env.GUESTY_CLIENT_ID,
      clientSecret: env.GUESTY_CLIENT_SECRET,
      apiUrl: env.GUESTY_API_URL,
      authUrl: env.GUESTY_AUTH_URL ?? env.GUESTY_API_URL,
      payUrl: env.GUESTY_PAY_URL,
      invoiceItemsEndpoint: env.INVOICE_ITEMS_ENDPOINT,
      reservationsSurface: env.GUESTY_RESERVATIONS_SURFACE ?? env.GUESTY_API_SURFACE,
      paymentMethodsSurface: env.GUESTY_PAYMENT_METHODS_SURFACE ?? env.GUESTY_API_SURFACE,
      webhookSecret: env.GUESTY_WEBHOOK_SECRET,
      tokenCredentials: env.GUESTY_TOKEN_CREDENTIALS,
      tokensPerDay: env.GUESTY_TOKENS_PER_DAY,
      tokenReserve: env.GUESTY_TOKEN_RESERVE,
      requestTimeoutMs: env.UPSTREAM_TIMEOUT_MS,
      callDeadlineMs: env.UPSTREAM_DEADLINE_MS,
    },
    redis: {
      url: env.REDIS_URL,
      keyPrefix: env.REDIS_KEY_PREFIX,
      waitReplicas: env.REDIS_WAIT_REPLICAS,
      waitTimeoutMs: env.REDIS_WAIT_TIMEOUT_MS,
    },
    checkout: {
      returnUrl: env.CHECKOUT_RETURN_URL ?? (sandbox ? `${publicBaseUrl}/demo/reference` : ''),
      extras: env.CHECKOUT_EXTRAS,
      sessionTtlSeconds: env.CHECKOUT_SESSION_TTL_SECONDS,
      ipRateLimit: env.CHECKOUT_IP_RATE_LIMIT,
      cardAttempts: env.CHECKOUT_CARD_ATTEMPTS,
      sessionsPerReservation: env.CHECKOUT_SESSIONS_PER_RESERVATION,
      reservationMissesPerIp: env.CHECKOUT_RESERVATION_MISSES_PER_IP,
      cardCollection: env.CARD_COLLECTION,
    },
    upstreamRateLimits: env.UPSTREAM_RATE_LIMITS,
    reservationWrites: {
      spacingMs: env.RESERVATION_WRITE_SPACING_MS,
      leaseMs: env.RESERVATION_LEASE_MS,
      settleMs: env.WRITE_SETTLE_SECONDS * 1000,
      // The sandbox's platform starts with the process: nothing sent before it can land.
      holdOnNewStore: env.WRITE_HOLD_ON_NEW_STORE ?? !sandbox,
    },
    admin: { apiKey: env.ADMIN_API_KEY },
    logging: { level: env.LOG_LEVEL, pretty: env.LOG_PRETTY ?? (!production && env.NODE_ENV !== 'test') },
    budget: {
      anonymousSharePercent: env.UPSTREAM_ANONYMOUS_SHARE,
      ipReadLimit: env.CHECKOUT_IP_READ_LIMIT,
      anonymousRecordsPerHour: env.ANONYMOUS_RECORDS_PER_HOUR,
      paymentStatusRefreshSeconds: env.PAYMENT_STATUS_REFRESH_SECONDS,
    },
    booking: {
      calendarCacheSeconds: env.CALENDAR_CACHE_SECONDS,
      quoteReuseSeconds: env.QUOTE_REUSE_SECONDS,
      source: env.BOOKING_SOURCE,
      hold: env.BOOKING_HOLD,
      confirmation: env.BOOKING_CONFIRMATION,
      holdsPerIp: env.BOOKING_HOLDS_PER_IP,
      unpaidHoldsPerListing: env.BOOKING_UNPAID_HOLDS_PER_LISTING,
      maxNights: env.BOOKING_MAX_NIGHTS,
      unpaidNightsPerListing: env.BOOKING_UNPAID_NIGHTS_PER_LISTING,
    },
  };
}
