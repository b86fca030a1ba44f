import { createHmac, hkdfSync } from 'node:crypto';

const SALT = 'booking-checkout/idempotency';
const INFO = 'hmac-sha256 fingerprint of a request body';

/**
 * JSON with object keys sorted at every depth, so that two bodies that mean the same compare equal
 * whatever order the client wrote their fields in. Values go through JSON first (class instances,
 * undefined fields and Dates end up as the request's JSON would carry them).
 */
export function canonicalJson(value: unknown): string {
  return serialize(JSON.parse(JSON.stringify(value ?? null) ?? 'null') as unknown);
}

function serialize(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(serialize).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const fields = Object.keys(record)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${serialize(record[key])}`);
    return `{${fields.join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * A keyed hash (HMAC-SHA256, key derived with HKDF from the client secret) of the canonical body.
 * Keyed, because a body may hold a card number: a plain hash of one could be found by trying every
 * number of a BIN range, so whoever reads Redis could recover cards.
 */
export class BodyFingerprint {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = Buffer.from(hkdfSync('sha256', secret, SALT, INFO, 32));
  }

  of(body: unknown): string {
    return createHmac('sha256', this.key).update(canonicalJson(body)).digest('hex');
  }
}
