/** The one form of an Idempotency-Key, checked on every write route and stated in its description. */
export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9_-]{8,128}$/;
export const IDEMPOTENCY_KEY_FORMAT = '8 to 128 letters, digits, "-" or "_", one per attempt (a UUID fits)';
