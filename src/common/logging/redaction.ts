/*
 * Keeps card data and credentials out of logs, and nothing else. Card number and expiry are
 * redacted only under a `card`, since a `number` or `state` elsewhere is an operator's data. Free
 * text that slips through (error messages, upstream bodies) has card-like digit runs, bearer
 * credentials, JWTs and 3-D Secure states in URLs blanked.
 */

export const REDACTED = '[REDACTED]';

const SENSITIVE_KEYS = new Set(
  [
    'cardNumber',
    'pan',
    'cvc',
    'cvv',
    'cvv2',
    'securityCode',
    'client_secret',
    'clientSecret',
    'access_token',
    'accessToken',
    'refresh_token',
    'id_token',
    'authorization',
    'proxy-authorization',
    'cookie',
    'set-cookie',
    'apiKey',
    'api_key',
    'x-api-key',
    'password',
    'secret',
    'webhookSecret',
    'svix-signature',
    'webhook-signature',
  ].map(normalise),
);

/** Fields that are card data only inside a `card` object. */
const CARD_KEYS = new Set(['number', 'exp_month', 'exp_year', 'expMonth', 'expYear'].map(normalise));

function normalise(key: string): string {
  return key.toLowerCase().replace(/[-_]/g, '');
}

export function isSensitiveKey(key: string, parentKey?: string): boolean {
  const name = normalise(key);
  return SENSITIVE_KEYS.has(name) || (parentKey !== undefined && normalise(parentKey) === 'card' && CARD_KEYS.has(name));
}

// 13–19 digits, optionally grouped by spaces or dashes: every card number length in use.
const CARD_LIKE = /\b\d(?:[ -]?\d){12,18}\b/g;
// Bearer credentials and JWT-shaped strings, in case a header or token ends up in a message.
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi;
const JWT_LIKE = /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\b/g;
// A 3-D Secure return URL's one-time state.
const STATE_PARAM = /([?&]state=)[^&\s"']+/g;

export function scrubText(text: string): string {
  return text
    .replace(CARD_LIKE, '[CARD-NUMBER]')
    .replace(BEARER, '$1 [REDACTED]')
    .replace(JWT_LIKE, '[TOKEN]')
    .replace(STATE_PARAM, '$1[REDACTED]');
}

const MAX_DEPTH = 8;

/** A copy of `value` safe to log. Errors become {type, message, stack, code?} with their text scrubbed. */
export function redactForLog(value: unknown, depth = 0, seen = new WeakSet<object>(), parentKey?: string): unknown {
  if (typeof value === 'string') return scrubText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[DEPTH]';
  if (seen.has(value)) return '[CIRCULAR]';
  seen.add(value);
  if (value instanceof Error) {
    const error = value as Error & { code?: unknown; cause?: unknown };
    return {
      type: error.name,
      message: scrubText(error.message),
      ...(error.code !== undefined ? { code: redactForLog(error.code, depth + 1, seen) } : {}),
      ...(error.stack ? { stack: scrubText(error.stack) } : {}),
      ...(error.cause !== undefined ? { cause: redactForLog(error.cause, depth + 1, seen) } : {}),
    };
  }
  if (Array.isArray(value)) return value.map((item) => redactForLog(item, depth + 1, seen, parentKey));
  if (Buffer.isBuffer(value)) return `[${value.length} bytes]`;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    copy[key] = isSensitiveKey(key, parentKey) && item !== undefined && item !== null ? REDACTED : redactForLog(item, depth + 1, seen, key);
  }
  return copy;
}
