import { FieldError } from '../common/errors/domain-error';
import { scrubText } from '../common/logging/redaction';
import { TokenizeResult } from './guesty.types';
import { UpstreamAnswer } from './upstream-http';

/** Why the tokenization host refused a card, in the product's words. */
export type TokenizeRefusal =
  /** 402 ERR_BAD_REQUEST: the payment account is faulty or offline (docs/upstream-seed.md §7). */
  | 'payment_account'
  /** 400 or 422 naming no field: the card was not accepted (a decline, whatever words came with it). */
  | 'declined'
  /** 400 or 422 with field details: the card data was not accepted as sent. */
  | 'invalid_fields'
  | 'unavailable'
  | 'other';

/** A tokenization answer, typed: the token, or a refusal with its reason. Never the raw body. */
export type TokenizeAnswer =
  | { kind: 'token'; token: TokenizeResult; status: number; requestId?: string }
  | { kind: 'refused'; reason: TokenizeRefusal; fields?: FieldError[]; status: number; requestId?: string };

interface Detail {
  field?: unknown;
  message?: unknown;
}

interface TokenizeBody {
  _id?: unknown;
  threeDS?: { authURL?: unknown };
  details?: unknown;
  error?: { details?: unknown };
}

/** Field details, at the top of the body or under `error`; anything else is no details. */
function detailsOf(body: TokenizeBody): Detail[] | undefined {
  const details = Array.isArray(body.details) ? body.details : Array.isArray(body.error?.details) ? body.error.details : undefined;
  return details?.filter((detail): detail is Detail => detail !== null && typeof detail === 'object');
}

/**
 * Reads the tokenization host's answer. The platform publishes no refusal body for it
 * (docs/upstream.md), so a refusal is read by its status, with field details added where they come
 * (scrubbed: they may quote card data). A body in another shape, empty or not JSON gives the guest
 * the same answer.
 */
export function readTokenizeAnswer(answer: UpstreamAnswer): TokenizeAnswer {
  const body: TokenizeBody = answer.data !== null && typeof answer.data === 'object' ? answer.data : {};
  const { status, requestId } = answer;
  if (status >= 200 && status < 300 && typeof body._id === 'string' && body._id !== '') {
    const authURL = typeof body.threeDS?.authURL === 'string' ? body.threeDS.authURL : undefined;
    return { kind: 'token', token: { _id: body._id, ...(authURL ? { threeDS: { authURL } } : {}) }, status, requestId };
  }
  const refused = (reason: TokenizeRefusal, fields?: FieldError[]): TokenizeAnswer => ({
    kind: 'refused',
    reason,
    ...(fields ? { fields } : {}),
    status,
    requestId,
  });
  if (status === 402) return refused('payment_account');
  if (status === 429 || status >= 500) return refused('unavailable');
  if (status === 400 || status === 422) {
    const details = detailsOf(body);
    if (!details?.length) return refused('declined');
    return refused(
      'invalid_fields',
      details.map((detail) => ({
        field: typeof detail.field === 'string' ? detail.field : 'card',
        message: typeof detail.message === 'string' ? scrubText(detail.message).slice(0, 200) : 'is not accepted',
      })),
    );
  }
  return refused('other');
}
