import { FieldError } from '../common/errors/domain-error';
import { scrubText } from '../common/logging/redaction';
import { TokenizeResult } from './guesty.types';
import { UpstreamAnswer } from './upstream-http';

/** Why the tokenization host refused a card, in the product's words. */
export type TokenizeRefusal =
  /** 402 ERR_BAD_REQUEST: the payment account is faulty or offline (docs/upstream-seed.md §7). */
  | 'payment_account'
  | 'declined'
  /** 400 with field details: the card data was not accepted as sent. */
  | 'invalid_fields'
  | 'unavailable'
  | 'other';

/** A tokenization answer, typed: the token, or a refusal with its reason. Never the raw body. */
export type TokenizeAnswer =
  | { kind: 'token'; token: TokenizeResult; status: number; requestId?: string }
  | { kind: 'refused'; reason: TokenizeRefusal; fields?: FieldError[]; status: number; requestId?: string };

interface TokenizeBody {
  _id?: unknown;
  threeDS?: { authURL?: unknown };
  code?: unknown;
  decline_code?: unknown;
  details?: { field?: unknown; message?: unknown }[];
}

/** Reads the tokenization host's answer; field messages are scrubbed, they may quote card data. */
export function readTokenizeAnswer(answer: UpstreamAnswer): TokenizeAnswer {
  const body = (answer.data ?? {}) as TokenizeBody;
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
  if (status === 400 && (body.code === 'CARD_DECLINED' || typeof body.decline_code === 'string')) return refused('declined');
  if (status === 400 && Array.isArray(body.details)) {
    return refused(
      'invalid_fields',
      body.details.map((detail) => ({
        field: typeof detail.field === 'string' ? detail.field : 'card',
        message: typeof detail.message === 'string' ? scrubText(detail.message).slice(0, 200) : 'is not accepted',
      })),
    );
  }
  return refused(status >= 500 ? 'unavailable' : 'other');
}
