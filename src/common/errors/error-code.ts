/** Stable machine words of the problem bodies (docs/product-spec.md §3), with the status and title each answers. */
export const ERROR_CODES = {
  validation_failed: { status: 400, title: 'The request is not valid' },
  malformed_json: { status: 400, title: 'The body is not valid JSON' },
  unauthorized: { status: 401, title: 'Authentication is required' },
  not_found: { status: 404, title: 'Not found' },
  session_not_found: { status: 404, title: 'Checkout session not found' },
  reservation_not_found: { status: 404, title: 'Reservation not found' },
  listing_not_found: { status: 404, title: 'Listing not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  idempotency_in_progress: { status: 409, title: 'A request with this Idempotency-Key is still running' },
  invalid_state: { status: 409, title: 'The session does not allow this now' },
  already_paid: { status: 409, title: 'A payment method is already on file for this reservation' },
  quote_not_found: { status: 404, title: 'Quote not found or expired' },
  dates_unavailable: { status: 409, title: 'The dates are not available' },
  quote_used: { status: 409, title: 'A reservation was already made from this quote' },
  hold_expired: { status: 409, title: 'The reservation no longer holds its dates' },
  stay_not_allowed: { status: 422, title: "The stay does not meet the property's terms" },
  payload_too_large: { status: 413, title: 'The body is too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported content type' },
  idempotency_conflict: { status: 422, title: 'The Idempotency-Key was used with another body' },
  card_declined: { status: 402, title: 'The card was declined' },
  rate_limited: { status: 429, title: 'Too many requests' },
  internal_error: { status: 500, title: 'Internal error' },
  payment_account_unavailable: { status: 502, title: 'The card could not be processed' },
  upstream_error: { status: 502, title: 'The booking platform answered with an error' },
  upstream_forbidden: { status: 502, title: 'The booking platform refused the service' },
  upstream_unavailable: { status: 503, title: 'The booking platform is unavailable' },
  token_budget_exhausted: { status: 503, title: 'No access token may be minted now' },
  store_unavailable: { status: 503, title: 'Shared state is unavailable' },
  outcome_pending: { status: 503, title: 'The outcome is being confirmed with the booking platform' },
  not_ready: { status: 503, title: 'Not ready' },
  shutting_down: { status: 503, title: 'Shutting down' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

const BY_STATUS: Record<number, ErrorCode> = {
  400: 'validation_failed',
  401: 'unauthorized',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'invalid_state',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  503: 'upstream_unavailable',
};

export function errorCodeForStatus(status: number): ErrorCode {
  return BY_STATUS[status] ?? (status >= 500 ? 'internal_error' : 'validation_failed');
}
