import { retryAfterOf } from '../errors/error-code';
import { SealedValue } from '../../redis/at-rest-cipher';
import { DomainError, FieldError } from '../errors/domain-error';
import { ERROR_CODES, ErrorCode } from '../errors/error-code';

/** What a route answered, as it is replayed. */
export interface StoredAnswer<T> {
  status: number;
  body: T;
}

/** A final error answer: only what the problem body shows, never the cause (it may quote upstream data). */
export interface StoredError {
  code: ErrorCode;
  detail: string;
  status: number;
  errors?: FieldError[];
}

/**
 * The one value under an Idempotency-Key. `unknown`: its upstream write has no known outcome yet,
 * so the key stays bound and a retry with the same body runs again to meet what the journal
 * reconciled. A done answer is sealed (docs/product-spec.md §7) because it names the guest's
 * session, a capability; `answer` in clear is what earlier versions wrote.
 */
export type IdempotencyRecord =
  | { state: 'running'; fingerprint: string; owner: string }
  | { state: 'unknown'; fingerprint: string }
  | { state: 'done'; fingerprint: string; sealedAnswer: SealedValue }
  | { state: 'done'; fingerprint: string; answer: StoredAnswer<unknown> }
  | { state: 'failed'; fingerprint: string; error: StoredError };

/**
 * An error is a final answer when asking again with the same body would get it again (a decline, a
 * validation failure). 5xx, 429 and anything that carries Retry-After say "try again": storing them
 * would answer the client's retry with the same refusal for a day.
 */
/** An upstream write whose outcome is not known: its key is neither answered nor released. */
export function isOutcomePending(error: unknown): error is DomainError {
  return error instanceof DomainError && error.code === 'outcome_pending';
}

/**
 * A request refused for its body (400) or for a target that does not exist (404) is not recorded:
 * it changed nothing, and a record per refusal would let anyone fill Redis for a day at the price of
 * one request each (docs/product-spec.md §7). Asked again, it is refused again.
 */
export function isRefusal(error: unknown): error is DomainError {
  return error instanceof DomainError && (error.status === 400 || error.status === 404);
}

export function isFinalError(error: unknown): error is DomainError {
  return (
    error instanceof DomainError &&
    error.status < 500 &&
    error.status !== 429 &&
    retryAfterOf(error.code, error.retryAfterSeconds) === undefined
  );
}

export function storedError(error: DomainError): StoredError {
  return { code: error.code, detail: error.detail, status: error.status, ...(error.errors ? { errors: error.errors } : {}) };
}

export function replayedError(stored: StoredError): DomainError {
  return new DomainError(stored.code, stored.detail, { status: stored.status, errors: stored.errors });
}

/** The record, or null when the value is not one (written by something else, or damaged). */
export function parseRecord(text: string): IdempotencyRecord | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const record = value as Record<string, unknown>;
  if (typeof record.fingerprint !== 'string') return null;
  if (record.state === 'running' && typeof record.owner === 'string') return record as IdempotencyRecord;
  if (record.state === 'unknown') return record as IdempotencyRecord;
  if (
    record.state === 'done' &&
    typeof (record.sealedAnswer ?? record.answer) === 'object' &&
    (record.sealedAnswer ?? record.answer) !== null
  ) {
    return record as IdempotencyRecord;
  }
  const error = record.error as Partial<StoredError> | undefined;
  if (record.state === 'failed' && typeof error?.code === 'string' && error.code in ERROR_CODES && typeof error.status === 'number') {
    return record as IdempotencyRecord;
  }
  return null;
}
