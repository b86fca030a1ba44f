import { BOOKING_HOLDS, BookingHold, ExtraDefinition, LogLevel, RateLimit, ReplicaWaitSetting } from './app-config';
import {
  Extras,
  Flag,
  HttpUrl,
  Integer,
  Matching,
  OneOf,
  Origins,
  Rate,
  rate,
  Rates,
  rates,
  RedisUrl,
  ReplicaWait,
  Text,
  variablesOf,
} from './environment-kinds';

/** The platform's surface the service calls unless told otherwise: the one that stays after 2027-03-01. */
export const DEFAULT_API_SURFACE = 'current';

/** The platform retires its legacy reservation endpoints on this day (changelog 2026-11-05); its legacy payment methods have no date. */
export const LEGACY_RESERVATIONS_RETIRED_AT = Date.UTC(2027, 2, 1);

const LOG_LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/**
 * Every variable of docs/product-spec.md §2, one property each: its kind, its default. Those without a
 * default here have none, or one derived from other variables (parse-configuration.ts). The rules
 * between variables run after these (parse-configuration.ts, timing-rules.ts). Problems are listed
 * in this order.
 */
export class Environment {
  @Text() NODE_ENV = 'development';
  @Integer(0, 65_535) PORT = 3000;
  @HttpUrl() PUBLIC_BASE_URL?: string;
  @Text() GUESTY_CLIENT_ID?: string;
  @Text() GUESTY_CLIENT_SECRET?: string;
  @OneOf('auto', 'true', 'false') SANDBOX: 'auto' | 'true' | 'false' = 'auto';
  @HttpUrl() GUESTY_API_URL = 'https://open-api.guesty.com';
  @HttpUrl() GUESTY_AUTH_URL?: string;
  @HttpUrl() GUESTY_PAY_URL = 'https://pay.guesty.com';
  @RedisUrl() REDIS_URL?: string;
  @Matching(/^[A-Za-z0-9:_{}.-]{1,64}$/, 'must be 1-64 letters, digits or ":_{}.-"') REDIS_KEY_PREFIX = 'checkout:';
  @HttpUrl() CHECKOUT_RETURN_URL?: string;
  @Integer(0, 10) TRUST_PROXY = 0;
  @Origins() CORS_ORIGINS: string[] = [];
  @Origins() EMBED_ORIGINS?: string[];
  @OneOf('form', 'sdk') CARD_COLLECTION: 'form' | 'sdk' = 'form';
  @Flag() DOCS_ENABLED = true;
  @Integer(0, 60_000) SHUTDOWN_DELAY_MS = 0;
  @Integer(0, 120_000) SHUTDOWN_DRAIN_MS = 10_000;
  @OneOf('current', 'deprecated') INVOICE_ITEMS_ENDPOINT: 'current' | 'deprecated' = 'current';
  @OneOf('current', 'legacy') GUESTY_API_SURFACE: 'current' | 'legacy' = DEFAULT_API_SURFACE;
  @OneOf('current', 'legacy') GUESTY_RESERVATIONS_SURFACE?: 'current' | 'legacy';
  @OneOf('current', 'legacy') GUESTY_PAYMENT_METHODS_SURFACE?: 'current' | 'legacy';
  @Matching(/^whsec_[A-Za-z0-9+/]{16,}={0,2}$/, 'must be the subscription secret: whsec_ followed by its base64 key')
  GUESTY_WEBHOOK_SECRET?: string;
  @OneOf('basic', 'body') GUESTY_TOKEN_CREDENTIALS: 'basic' | 'body' = 'basic';
  @Integer(1, 100) GUESTY_TOKENS_PER_DAY = 5;
  @Integer(0, 99) GUESTY_TOKEN_RESERVE = 1;
  @Integer(100, 60_000) UPSTREAM_TIMEOUT_MS = 8_000;
  @Integer(500, 120_000) UPSTREAM_DEADLINE_MS = 10_000;
  @ReplicaWait() REDIS_WAIT_REPLICAS: ReplicaWaitSetting = 'auto';
  @Integer(10, 900) REDIS_WAIT_TIMEOUT_MS = 500;
  @Extras() CHECKOUT_EXTRAS: ExtraDefinition[] = [];
  @Integer(60, 86_400) CHECKOUT_SESSION_TTL_SECONDS = 3600;
  @Rate() CHECKOUT_IP_RATE_LIMIT = rate('60/m');
  @Rate() CHECKOUT_CARD_ATTEMPTS = rate('10/h');
  @Rate() CHECKOUT_SESSIONS_PER_RESERVATION = rate('5/h');
  @Rate() CHECKOUT_RESERVATION_MISSES_PER_IP = rate('3/h');
  @Rates() UPSTREAM_RATE_LIMITS: RateLimit[] = rates('15/s,120/m,5000/h');
  @Integer(0, 60_000) RESERVATION_WRITE_SPACING_MS = 1_500;
  @Integer(1, 120_000) RESERVATION_LEASE_MS = 10_000;
  @Integer(1, 86_400) WRITE_SETTLE_SECONDS = 120;
  @Flag() WRITE_HOLD_ON_NEW_STORE?: boolean;
  @Matching(/^.{16,}$/s, 'must be at least 16 characters') ADMIN_API_KEY?: string;
  @OneOf(...LOG_LEVELS) LOG_LEVEL: LogLevel = 'info';
  @Flag() LOG_PRETTY?: boolean;
  @Integer(0, 100) UPSTREAM_ANONYMOUS_SHARE = 50;
  @Rate() CHECKOUT_IP_READ_LIMIT = rate('120/m');
  @Integer(1, 10_000_000) ANONYMOUS_RECORDS_PER_HOUR = 20_000;
  @Integer(1, 3600) PAYMENT_STATUS_REFRESH_SECONDS = 10;
  @Integer(1, 86_400) CALENDAR_CACHE_SECONDS = 300;
  @Integer(0, 86_400) QUOTE_REUSE_SECONDS = 300;
  @Matching(/^[A-Za-z0-9 ._-]{1,40}$/, 'must be 1-40 letters, digits, spaces or "._-"') BOOKING_SOURCE = 'website';
  @OneOf(...BOOKING_HOLDS) BOOKING_HOLD: BookingHold = '30m';
  @OneOf('instant', 'request') BOOKING_CONFIRMATION: 'instant' | 'request' = 'instant';
  @Rate() BOOKING_HOLDS_PER_IP = rate('3/h');
  @Integer(1, 1_000_000) BOOKING_UNPAID_HOLDS_PER_LISTING = 5;
  @Integer(1, 365) BOOKING_MAX_NIGHTS = 31;
  @Integer(1, 100_000) BOOKING_UNPAID_NIGHTS_PER_LISTING = 62;
}

/** The names of the variables the service reads, in the order of the schema. */
export const ENVIRONMENT_VARIABLES: readonly string[] = variablesOf(Environment);
