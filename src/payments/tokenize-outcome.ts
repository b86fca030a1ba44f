import { DomainError } from '../common/errors/domain-error';
import { TokenizeAnswer } from '../upstream/tokenize-answer';

const GUEST_ACCOUNT_MESSAGE = 'The card could not be processed right now. Please try again later or use another payment option.';

/**
 * What a tokenization refusal means for the guest: a faulty or offline payment account is never
 * retried (operators must act; the guest is told to come back later), a decline is the card's, told
 * in the same words whatever the platform's body said (src/upstream/tokenize-answer.ts).
 */
export function refusalError(answer: Extract<TokenizeAnswer, { kind: 'refused' }>): DomainError {
  switch (answer.reason) {
    case 'payment_account':
      return new DomainError('payment_account_unavailable', GUEST_ACCOUNT_MESSAGE, { retryAfterSeconds: 300 });
    case 'declined':
      return new DomainError('card_declined', 'The card was declined. Please check its details or use another card.');
    case 'invalid_fields':
      return DomainError.validation(answer.fields ?? [], 'The card details were not accepted.');
    case 'unavailable':
      return new DomainError('upstream_unavailable', 'Card processing is unavailable right now; please try again shortly.', {
        retryAfterSeconds: 5,
      });
    default:
      return new DomainError('upstream_error', 'The card could not be processed.');
  }
}
