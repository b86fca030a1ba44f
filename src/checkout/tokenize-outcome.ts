import { DomainError } from '../common/errors/domain-error';
import { FieldError } from '../common/errors/domain-error';
import { scrubText } from '../common/logging/redaction';
import { TokenizeResult } from '../upstream/guesty.types';
import { UpstreamAnswer } from '../upstream/upstream-http';

export type TokenizeOutcome =
  | { kind: 'token'; token: TokenizeResult }
  | { kind: 'refused'; error: DomainError; accountProblem: boolean };

interface TokenizeErrorBody {
  code?: unknown;
  message?: unknown;
  decline_code?: unknown;
  details?: { field?: unknown; message?: unknown }[];
}

const GUEST_ACCOUNT_MESSAGE = 'The card could not be processed right now. Please try again later or use another payment option.';

/**
 * What a tokenization answer means for the guest (docs/upstream-seed.md §7): 402 ERR_BAD_REQUEST is the payment
 * account being faulty or offline (never retried; operators must act), a decline is the card.
 */
export function readTokenizeAnswer(answer: UpstreamAnswer): TokenizeOutcome {
  const body = (answer.data ?? {}) as TokenizeErrorBody & TokenizeResult;
  if (answer.status >= 200 && answer.status < 300 && typeof body._id === 'string' && body._id !== '') {
    return { kind: 'token', token: { _id: body._id, threeDS: body.threeDS } };
  }
  if (answer.status === 402) {
    return { kind: 'refused', accountProblem: true, error: new DomainError('payment_account_unavailable', GUEST_ACCOUNT_MESSAGE, { retryAfterSeconds: 300 }) };
  }
  if (answer.status === 400 && (body.code === 'CARD_DECLINED' || typeof body.decline_code === 'string')) {
    return { kind: 'refused', accountProblem: false, error: new DomainError('card_declined', 'The card was declined. Please use another card.') };
  }
  if (answer.status === 400 && Array.isArray(body.details)) {
    const errors: FieldError[] = body.details.map((detail) => ({
      field: typeof detail.field === 'string' ? detail.field : 'card',
      message: typeof detail.message === 'string' ? scrubText(detail.message).slice(0, 200) : 'is not accepted',
    }));
    return { kind: 'refused', accountProblem: false, error: DomainError.validation(errors, 'The card details were not accepted.') };
  }
  if (answer.status >= 500) {
    return { kind: 'refused', accountProblem: false, error: new DomainError('upstream_unavailable', 'Card processing is unavailable right now; please try again shortly.', { retryAfterSeconds: 5 }) };
  }
  return { kind: 'refused', accountProblem: false, error: new DomainError('upstream_error', 'The card could not be processed.') };
}
