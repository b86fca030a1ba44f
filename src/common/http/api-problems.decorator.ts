import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiResponse } from '@nestjs/swagger';
import { ERROR_CODES, ErrorCode } from '../errors/error-code';
import { problemDetails } from '../errors/problem-details';
import { ProblemDetailsDto } from './problem-details.dto';

/** Every response carries the request id (taken from the request when it is a sane token). */
export const REQUEST_ID_RESPONSE_HEADER = {
  'X-Request-Id': { description: 'the request id, also in problem bodies and log lines', schema: { type: 'string' } },
};

const RETRY_AFTER_HEADER = {
  'Retry-After': {
    description: 'seconds to wait before retrying (with the same Idempotency-Key for writes)',
    schema: { type: 'integer', minimum: 1 },
  },
};

/** A code a route answers, at its usual status, or `[code, status]` when it answers it at another (rate_limited as 503). */
export type RouteProblem = ErrorCode | readonly [ErrorCode, number];

const EXAMPLE_REQUEST_ID = '6f1c2a9e-1d7b-4c55-9d0e-2b1f3f7a9c10';

function exampleOf(code: ErrorCode, status: number): object {
  const errors = code === 'validation_failed' ? [{ field: 'field.name', message: 'what is wrong with it' }] : undefined;
  return problemDetails(code, ERROR_CODES[code].meaning, EXAMPLE_REQUEST_ID, { status, errors });
}

/**
 * Documents the problem+json answers of a route from the codes it can answer (src/common/errors/error-code.ts, the one
 * source): per status, the codes with their meaning, one example body per code, and the headers that come with them.
 */
export function ApiProblems(...problems: RouteProblem[]): MethodDecorator & ClassDecorator {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const problem of problems) {
    const [code, status] = typeof problem === 'string' ? [problem, ERROR_CODES[problem].status] : problem;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return applyDecorators(
    ApiExtraModels(ProblemDetailsDto),
    ...[...byStatus].map(([status, codes]) => {
      const retryAfter = status === 429 || status === 503 || codes.some((code) => 'retryAfter' in ERROR_CODES[code]);
      return ApiResponse({
        status,
        description: codes.map((code) => `\`${code}\`: ${ERROR_CODES[code].meaning}`).join('\n\n'),
        headers: { ...REQUEST_ID_RESPONSE_HEADER, ...(retryAfter ? RETRY_AFTER_HEADER : {}) },
        content: {
          'application/problem+json': {
            schema: { $ref: '#/components/schemas/ProblemDetailsDto' },
            examples: Object.fromEntries(codes.map((code) => [code, { summary: ERROR_CODES[code].title, value: exampleOf(code, status) }])),
          },
        },
      });
    }),
  );
}

/** A JSON body that could not be read, or was refused before validation. */
export const BODY_PROBLEMS = [
  'validation_failed',
  'malformed_json',
  'payload_too_large',
  'unsupported_media_type',
] as const satisfies RouteProblem[];

/** An operator route: the key guard's answers (a wrong key, a network paused after too many wrong keys). */
export const ADMIN_PROBLEMS = ['unauthorized', 'not_found', 'rate_limited'] as const satisfies RouteProblem[];

/** A write with an Idempotency-Key (docs/product-spec.md §3). */
export const IDEMPOTENCY_PROBLEMS = [
  'idempotency_in_progress',
  'idempotency_conflict',
  'outcome_pending',
  'step_in_progress',
] as const satisfies RouteProblem[];

/** Any route that calls the platform: its errors, its refusal, its unavailability, an answer it cannot rely on, the shared budgets, the shared state. */
export const UPSTREAM_PROBLEMS = [
  'upstream_error',
  'upstream_forbidden',
  'upstream_unavailable',
  'platform_answer_unexpected',
  ['rate_limited', 503],
  'token_budget_exhausted',
  'store_unavailable',
] as const satisfies RouteProblem[];
