import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiResponse } from '@nestjs/swagger';
import { ProblemDetailsDto } from './problem-details.dto';

const DESCRIPTIONS: Record<number, string> = {
  400: 'Validation failed, or the body is not JSON',
  401: 'Missing or wrong credentials',
  402: 'The card was declined',
  404: 'Not found',
  409: 'Conflicting state, or the same Idempotency-Key is still running',
  413: 'Body too large',
  415: 'Body is not application/json',
  422: 'Idempotency-Key reused with another body',
  429: 'Too many requests; see Retry-After',
  500: 'Internal error',
  502: 'The booking platform answered with an error',
  503: 'Unavailable; see Retry-After',
};

/** Documents problem+json answers for the given statuses. */
export function ApiProblems(...statuses: number[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiExtraModels(ProblemDetailsDto),
    ...statuses.map((status) =>
      ApiResponse({
        status,
        description: DESCRIPTIONS[status] ?? 'Problem',
        content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/ProblemDetailsDto' } } },
      }),
    ),
  );
}
