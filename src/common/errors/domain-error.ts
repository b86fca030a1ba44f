import { ERROR_CODES, ErrorCode } from './error-code';

export interface FieldError {
  field: string;
  message: string;
}

/**
 * Why a stay's length is refused, with the limit as a number, so a site words it in its own
 * language (docs/product-spec.md §3.1): the least nights the calendar gives the arrival day, or the
 * most the service books online.
 */
export type StayLimit = { reason: 'stay_too_short'; minNights: number } | { reason: 'stay_too_long'; maxNights: number };

export interface DomainErrorOptions {
  /** Overrides the code's usual status (e.g. rate_limited answers 503 when the upstream budget is spent). */
  status?: number;
  retryAfterSeconds?: number;
  errors?: FieldError[];
  limit?: StayLimit;
  /** For the log line only; never reaches a response. */
  cause?: unknown;
}

/**
 * What services throw: a stable code and a message safe to show the caller. Not an HttpException:
 * the one global filter decides how codes become responses.
 */
export class DomainError extends Error {
  readonly status: number;
  readonly retryAfterSeconds?: number;
  readonly errors?: FieldError[];
  readonly limit?: StayLimit;

  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    options: DomainErrorOptions = {},
  ) {
    super(detail, options.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = 'DomainError';
    this.status = options.status ?? ERROR_CODES[code].status;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.errors = options.errors;
    this.limit = options.limit;
  }

  /** Redis could not be reached or did not answer: the same clean 503 wherever shared state is needed. */
  static storeUnavailable(cause: unknown): DomainError {
    return new DomainError('store_unavailable', 'Shared state is unavailable; try again shortly.', { retryAfterSeconds: 1, cause });
  }

  /**
   * A write whose outcome is not known yet (docs/product-spec.md §6.2): never "failed", never sent again; the
   * Idempotency-Key stays bound to it and a retry answers what reconciliation finds.
   */
  static outcomePending(detail: string, cause?: unknown): DomainError {
    return new DomainError('outcome_pending', detail, { retryAfterSeconds: 2, cause });
  }

  static validation(errors: FieldError[], detail = 'Some fields are not valid.'): DomainError {
    return new DomainError('validation_failed', detail, { errors });
  }
}
