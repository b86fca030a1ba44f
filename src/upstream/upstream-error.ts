import { DomainError } from '../common/errors/domain-error';
import { ErrorCode } from '../common/errors/error-code';

export interface UpstreamErrorDetails {
  operation: string;
  /** The upstream's HTTP status; absent when no answer came (timeout, refused, reset). */
  upstreamStatus?: number;
  upstreamRequestId?: string;
  retryAfterSeconds?: number;
  /** False only when the request surely never reached the upstream (so even a write may be retried). */
  maybeSent: boolean;
  /** Overrides the code's usual status (rate_limited answers 503: it is the upstream that is busy). */
  status?: number;
  /** The upstream's own message, scrubbed, for callers that may show it (e.g. an invoice-item 400). */
  upstreamMessage?: string;
  cause?: unknown;
}

/**
 * The one error the upstream client throws: a DomainError (so the global filter answers it) that
 * also says what the upstream did. No AxiosError, header or raw body leaves the client.
 */
export class UpstreamError extends DomainError {
  readonly operation: string;
  readonly upstreamStatus?: number;
  readonly upstreamRequestId?: string;
  readonly maybeSent: boolean;
  readonly upstreamMessage?: string;

  constructor(code: ErrorCode, detail: string, details: UpstreamErrorDetails) {
    super(code, detail, { status: details.status, retryAfterSeconds: details.retryAfterSeconds, cause: details.cause });
    this.name = 'UpstreamError';
    this.operation = details.operation;
    this.upstreamStatus = details.upstreamStatus;
    this.upstreamRequestId = details.upstreamRequestId;
    this.maybeSent = details.maybeSent;
    this.upstreamMessage = details.upstreamMessage;
  }
}
