/** What the contract says of one code: the status it usually answers, its title, what it means for the site, and whether Retry-After comes with it. */
export interface ErrorCodeEntry {
  status: number;
  title: string;
  meaning: string;
  retryAfter?: true;
}

/** Stable machine words of the problem bodies (docs/product-spec.md §3), with the status and title each answers. */
export const ERROR_CODES = {
  validation_failed: {
    status: 400,
    title: 'The request is not valid',
    meaning: 'A field is missing or wrong; `errors` names each field. Fix the input and send again (nothing was sent upstream).',
  },
  malformed_json: {
    status: 400,
    title: 'The body is not valid JSON',
    meaning: "The body could not be read as JSON (or was empty with a JSON content type). A bug on the site's side.",
  },
  unauthorized: { status: 401, title: 'Authentication is required', meaning: 'Admin routes: the bearer key is missing or wrong.' },
  not_found: { status: 404, title: 'Not found', meaning: 'No route has this path (admin routes too while ADMIN_API_KEY is unset).' },
  session_not_found: {
    status: 404,
    title: 'Checkout session not found',
    meaning: 'The checkout session is unknown or expired: start a new session.',
  },
  reservation_not_found: {
    status: 404,
    title: 'Reservation not found',
    meaning: "No reservation has this id, or the email is not its guest's (the same answer, so ids cannot be probed).",
  },
  listing_not_found: { status: 404, title: 'Listing not found', meaning: 'No listing has this id.' },
  method_not_allowed: {
    status: 405,
    title: 'Method not allowed',
    meaning: 'The path exists but not with this method; the `Allow` header lists the methods it takes.',
  },
  idempotency_in_progress: {
    status: 409,
    title: 'A request with this Idempotency-Key is still running',
    retryAfter: true,
    meaning: 'The same Idempotency-Key is still being processed: retry after Retry-After with the same key and body.',
  },
  invalid_state: {
    status: 409,
    title: 'The session does not allow this now',
    meaning:
      'The session (or reservation) does not allow this step: a card on a session that already succeeded, extras before the card, a reservation with nothing left to pay. A refusal: pressing again changes nothing.',
  },
  step_in_progress: {
    status: 409,
    title: 'Another payment step for this reservation is running',
    retryAfter: true,
    meaning:
      'Another step on this reservation (another press, another tab, or the service settling an earlier attempt, which after a loss of its shared state may take up to WRITE_SETTLE_SECONDS) is running; this request sent nothing. Retry after Retry-After with the same Idempotency-Key and body: never a refusal, never a new key.',
  },
  already_paid: {
    status: 409,
    title: 'A payment method is already on file for this reservation',
    meaning: 'This service already put a card on the reservation; no second one is sent. Read payment-status for the money side.',
  },
  quote_not_found: { status: 404, title: 'Quote not found or expired', meaning: 'The quote is unknown or expired: ask for a new quote.' },
  dates_unavailable: {
    status: 409,
    title: 'The dates are not available',
    meaning: 'The dates were taken meanwhile: let the guest choose other dates.',
  },
  booking_refused: {
    status: 409,
    title: 'The property declined this booking',
    meaning:
      "The platform declined the quote or the reservation for a reason it did not name as dates or terms; its words go to the operator's log, not the guest. Let the guest try other dates or contact the property; nothing was booked.",
  },
  quote_used: {
    status: 409,
    title: 'A reservation was already made from this quote',
    meaning: 'A reservation was already made from this quote with another Idempotency-Key: ask for a new quote.',
  },
  hold_expired: {
    status: 409,
    title: 'The reservation no longer holds its dates',
    meaning:
      'The reservation no longer holds its dates: its hold ended before the card came, or the platform shows it canceled, declined or expired (read from the platform beside the card’s tokenization). Nothing was charged or attached. Start again with a new quote.',
  },
  stay_not_allowed: {
    status: 422,
    title: "The stay does not meet the property's terms",
    meaning:
      "The stay breaks the property's terms (minimum nights, guests, closed to arrival); `detail` tells which. A stay's length comes with `reason` and the limit as a number: `stay_too_short` and `minNights`, or `stay_too_long` and `maxNights` (the most nights booked online; the stay is still quoted).",
  },
  payload_too_large: { status: 413, title: 'The body is too large', meaning: 'The body is larger than the 32 KiB the service accepts.' },
  unsupported_media_type: {
    status: 415,
    title: 'Unsupported content type',
    meaning: 'The body is not application/json (forms are accepted only on the 3-D Secure returns).',
  },
  idempotency_conflict: {
    status: 422,
    title: 'The Idempotency-Key was used with another body',
    meaning: 'The Idempotency-Key was used before with another body: make a new key per attempt.',
  },
  card_declined: {
    status: 402,
    title: 'The card was declined',
    meaning: 'The issuer declined the card (or 3-D Secure failed): ask for another card.',
  },
  rate_limited: {
    status: 429,
    title: 'Too many requests',
    retryAfter: true,
    meaning:
      "Too many requests from this client (429), or the service's share of the platform's budget is spent or the network's reservation lookups are on their way (503): retry after Retry-After.",
  },
  internal_error: { status: 500, title: 'Internal error', meaning: 'A fault on our side; report the requestId.' },
  payment_account_unavailable: {
    status: 502,
    title: 'The card could not be processed',
    retryAfter: true,
    meaning:
      "The property's payment account is faulty or offline: the card could not be processed. Not the guest's fault; retry after Retry-After or contact the property.",
  },
  upstream_error: {
    status: 502,
    title: 'The booking platform answered with an error',
    meaning: 'The booking platform answered with an error we cannot pass on; report the requestId.',
  },
  upstream_forbidden: {
    status: 502,
    title: 'The booking platform refused the service',
    meaning: "The platform refused the service itself (its credentials or permissions): for operators, not the guest's card.",
  },
  upstream_unavailable: {
    status: 503,
    title: 'The booking platform is unavailable',
    retryAfter: true,
    meaning: 'The booking platform (or card processing) is unavailable: retry after Retry-After.',
  },
  token_budget_exhausted: {
    status: 503,
    title: 'No access token may be minted now',
    retryAfter: true,
    meaning: 'The service may not request another platform access token now: retry after Retry-After.',
  },
  store_unavailable: {
    status: 503,
    title: 'Shared state is unavailable',
    retryAfter: true,
    meaning: "The service's shared state (Redis) is unavailable: retry after Retry-After.",
  },
  outcome_pending: {
    status: 503,
    title: 'The outcome is being confirmed with the booking platform',
    retryAfter: true,
    meaning:
      'A write is being confirmed with the platform: retry after Retry-After with the same Idempotency-Key to get its outcome; never a new key (it would not be sent twice anyway).',
  },
  platform_answer_unexpected: {
    status: 503,
    title: 'The booking platform answered in a way the service cannot rely on',
    retryAfter: true,
    meaning:
      "The platform answered a read the service relies on unexpectedly (a 404 where the reservation exists, a 400 naming a field, an answer without a field the service needs), so nothing was sent on its word. Not the guest's fault: retry after Retry-After. For operators: `GET /health` names the read; check the account with `npm run platform:check`.",
  },
  not_ready: { status: 503, title: 'Not ready', meaning: 'Readiness: a dependency is down.' },
  shutting_down: { status: 503, title: 'Shutting down', meaning: 'Readiness: the instance is draining.' },
} as const satisfies Record<string, ErrorCodeEntry>;

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

/**
 * Every answer says whether to try again (docs/product-spec.md §3): Retry-After comes only with a
 * code the table marks retryable, so a refusal never invites a retry, whatever raised it.
 */
export function retryAfterOf(code: string, seconds: number | undefined): number | undefined {
  return isRetryable(code) ? seconds : undefined;
}

/** Whether the table marks the code "press again after Retry-After" (the site's, the client's and the campaign's one rule). */
export function isRetryable(code: unknown): boolean {
  return typeof code === 'string' && (ERROR_CODES as Record<string, ErrorCodeEntry | undefined>)[code]?.retryAfter === true;
}
