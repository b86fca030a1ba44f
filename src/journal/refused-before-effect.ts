import { DomainError } from '../common/errors/domain-error';
import { UpstreamError } from '../upstream/upstream-error';

/**
 * A write surely did nothing when it never left, or the platform answered it with a refusal (4xx,
 * 429 included: refused before any effect). Errors raised before the request (budget, token, store)
 * are domain errors without an upstream status. Anything else may have landed.
 */
export function refusedBeforeEffect(error: unknown): boolean {
  if (error instanceof UpstreamError) return !error.maybeSent || (error.upstreamStatus !== undefined && error.upstreamStatus < 500);
  return error instanceof DomainError;
}
