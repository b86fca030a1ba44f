/** The typed configuration, validated once at start (see parse-configuration.ts). */

export type RateWindowUnit = 's' | 'm' | 'h';

/** "15/s" → at most 15 events in any window of 1 second. */
export interface RateLimit {
  limit: number;
  windowMs: number;
  /** As configured, for messages and metrics labels. */
  text: string;
}

export interface ExtraDefinition {
  code: string;
  normalType: string;
  title: string;
  amount: number;
  secondIdentifier?: string;
  description?: string;
}

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface RuntimeConfig {
  nodeEnv: string;
  production: boolean;
  /** In-process upstream simulator instead of the real upstream. */
  sandbox: boolean;
}

export interface HttpConfig {
  port: number;
  publicBaseUrl: string;
  trustProxy: number;
  corsOrigins: string[];
  /** The site origins that may frame the drop-in checkout (EMBED_ORIGINS; CORS_ORIGINS when not set). */
  embedOrigins: string[];
  docsEnabled: boolean;
  bodyLimitBytes: number;
  /** After SIGTERM, how long to keep serving with readiness 503 before closing the listener. */
  shutdownDelayMs: number;
  /** Upper bound on how long in-flight requests may finish after the listener closes. */
  shutdownDrainMs: number;
}

export interface GuestyConfig {
  clientId?: string;
  clientSecret?: string;
  apiUrl: string;
  authUrl: string;
  payUrl: string;
  invoiceItemsEndpoint: 'current' | 'deprecated';
  /**
   * Where reservations, their guest and money are read: the current surface (Reservations V3, guest
   * folio, payments API) or the legacy read the platform retires on 2027-03-01 (docs/upstream.md).
   */
  reservationsSurface: 'current' | 'legacy';
  /**
   * Where cards are attached and listed: the payments API's payment methods, or the guest's legacy
   * ones, deprecated with no removal date (docs/upstream.md, "The surface of 2027").
   */
  paymentMethodsSurface: 'current' | 'legacy';
  /** The `whsec_…` secret of the platform's webhook subscription; absent: /webhooks/guesty answers 404. */
  webhookSecret?: string;
  /** Where the token request carries the credentials (docs/upstream-seed.md §4.1 allows both). */
  tokenCredentials: 'basic' | 'body';
  /** The upstream's token allowance per client id per rolling 24 h. */
  tokensPerDay: number;
  /** Tokens of that allowance the service never spends, kept for a person. */
  tokenReserve: number;
  /** Bound on one upstream request (connect and answer). */
  requestTimeoutMs: number;
  /** Bound on one logical read, queueing and retries included; writes get half as long again. */
  callDeadlineMs: number;
}

/** REDIS_WAIT_REPLICAS: `auto`, `off`, or a number of replicas from 1. */
export type ReplicaWaitSetting = 'auto' | 'off' | number;

export interface RedisConfig {
  /** Absent only outside production: the in-process store is used instead. */
  url?: string;
  keyPrefix: string;
  /**
   * REDIS_WAIT_REPLICAS, REDIS_WAIT_TIMEOUT_MS: replicas that must acknowledge a write's intent
   * (Redis WAIT) before the write is sent, so a failover cannot drop it: `auto`, one where the
   * primary had replicas when last connected; `off`, none asked.
   */
  waitReplicas: ReplicaWaitSetting;
  waitTimeoutMs: number;
}

export interface CheckoutConfig {
  returnUrl: string;
  extras: ExtraDefinition[];
  sessionTtlSeconds: number;
  ipRateLimit: RateLimit;
  cardAttempts: RateLimit;
  sessionsPerReservation: RateLimit;
  /** Session opens per client network that found no reservation (CHECKOUT_RESERVATION_MISSES_PER_IP). */
  reservationMissesPerIp: RateLimit;
  /**
   * CARD_COLLECTION: where the drop-in checkout takes the card. `form`: its own fields, tokenized
   * by this service; `sdk`: the platform's payment-form SDK, whose token this service attaches.
   */
  cardCollection: 'form' | 'sdk';
}

/** Writes to one reservation (docs/product-spec.md §6.3). */
export interface ReservationWritesConfig {
  /** Least time between two writes to one reservation, across replicas. */
  spacingMs: number;
  /** The writer's lease on a reservation; renewed every third of it while the work runs. */
  leaseMs: number;
  /** WRITE_SETTLE_SECONDS: how long after its send a write may still land; only past it may "not there" be believed. */
  settleMs: number;
  /**
   * WRITE_HOLD_ON_NEW_STORE: a Redis with no journal generation (a first start, or one that lost its
   * data) takes writes only once the settle horizon has passed since it was first seen.
   */
  holdOnNewStore: boolean;
}

export interface AppConfig {
  runtime: RuntimeConfig;
  http: HttpConfig;
  guesty: GuestyConfig;
  redis: RedisConfig;
  checkout: CheckoutConfig;
  upstreamRateLimits: RateLimit[];
  reservationWrites: ReservationWritesConfig;
  admin: { apiKey?: string };
  logging: { level: LogLevel; pretty: boolean };
  budget: BudgetConfig;
  booking: BookingConfig;
}

/** Shares of the upstream budget and the bounds on reads that may spend it (docs/product-spec.md §7). */
export interface BudgetConfig {
  /** Percent of every upstream budget window that anonymous reads may use (UPSTREAM_ANONYMOUS_SHARE). */
  anonymousSharePercent: number;
  /** Per client IP on every /checkout read that may cost an upstream call (CHECKOUT_IP_READ_LIMIT). */
  ipReadLimit: RateLimit;
  /**
   * Records anonymous traffic may make in Redis per hour, every replica together (ANONYMOUS_RECORDS_PER_HOUR):
   * past it such records are kept in each replica's memory instead.
   */
  anonymousRecordsPerHour: number;
  /** At most one upstream read of a reservation's payments per this many seconds, all replicas (PAYMENT_STATUS_REFRESH_SECONDS). */
  paymentStatusRefreshSeconds: number;
}

/** The upstream's `reservedUntil` periods a new reservation may hold its dates for (BOOKING_HOLD). */
export const BOOKING_HOLDS = ['10m', '15m', '30m', '12h', '24h', '36h', '48h', '72h'] as const;
export type BookingHold = (typeof BOOKING_HOLDS)[number];

/** Booking from dates (docs/product-spec.md §3.1). */
export interface BookingConfig {
  /** How long a listing's calendar month is served from Redis without asking the upstream (CALENDAR_CACHE_SECONDS). */
  calendarCacheSeconds: number;
  /** An identical quote request within this time (and the quote's validity) reuses the quote (QUOTE_REUSE_SECONDS). */
  quoteReuseSeconds: number;
  /** The `source` written on quotes and reservations (BOOKING_SOURCE). */
  source: string;
  /** How long a new reservation holds its dates before it is paid (BOOKING_HOLD). */
  hold: BookingHold;
  /** `instant`: confirmed once the card is on file; `request`: left `reserved` for the property manager (BOOKING_CONFIRMATION). */
  confirmation: 'instant' | 'request';
  /** Reservations held without a card, per client network (BOOKING_HOLDS_PER_IP). */
  holdsPerIp: RateLimit;
  /** Reservations of one listing held without a card at once, all replicas (BOOKING_UNPAID_HOLDS_PER_LISTING). */
  unpaidHoldsPerListing: number;
  /** The longest stay booked online; a longer one is still quoted (BOOKING_MAX_NIGHTS). */
  maxNights: number;
  /**
   * Nights of one listing held without a card at once, all replicas (BOOKING_UNPAID_NIGHTS_PER_LISTING):
   * however many networks hold it, the rest of the listing's year stays bookable.
   */
  unpaidNightsPerListing: number;
}
