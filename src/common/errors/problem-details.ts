import { ERROR_CODES, ErrorCode } from './error-code';
import { FieldError, StayLimit } from './domain-error';

/** RFC 9457 problem details, with the stable `code` and the request id (docs/product-spec.md §3). */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  errors?: FieldError[];
  /** With `stay_not_allowed` for a stay's length: which limit, and the limit itself. */
  reason?: StayLimit['reason'];
  minNights?: number;
  maxNights?: number;
  requestId: string;
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export function problemDetails(
  code: ErrorCode,
  detail: string,
  requestId: string,
  extra: { status?: number; errors?: FieldError[]; limit?: StayLimit } = {},
): ProblemDetails {
  return {
    type: `urn:problem:checkout:${code}`,
    title: ERROR_CODES[code].title,
    status: extra.status ?? ERROR_CODES[code].status,
    detail,
    code,
    ...(extra.errors && extra.errors.length > 0 ? { errors: extra.errors } : {}),
    ...extra.limit,
    requestId,
  };
}
