import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../primitives/clock';
import { UpstreamError } from './upstream-error';
import { UpstreamMetrics } from './upstream-metrics';

/** What came back from a read the product relies on: a status it cannot read as an answer, or a 2xx without a field it needs. */
export interface UnexpectedAnswer {
  operation: string;
  upstreamStatus?: number;
  /** The field a 2xx answer lacked (or an item of it). */
  missing?: string;
  /** The field a 400 named, when its body names one. */
  named?: string;
  /** A value the product does not know, with its field (`status "on_hold"`): never a guessed meaning. */
  unknown?: string;
  upstreamRequestId?: string;
  /** Which reservation or guest, for the operator's log line only (never in `/health`, which anyone may read). */
  reservationId?: string;
  guestId?: string;
}

/** The last unexpected answer of one operation on this replica, for `GET /health`. */
export interface UnexpectedOperation {
  operation: string;
  /** How many times since this replica started. */
  count: number;
  lastAt: string;
  found: string;
}

/** How long the guest is asked to wait: an account that answers this way does so until an operator acts. */
const RETRY_AFTER_SECONDS = 30;

/** What came back, in words for the operator and `/health`: the status, the field named or missing; never a body. */
function foundOf({ upstreamStatus, missing, named, unknown }: UnexpectedAnswer): string {
  const parts = [
    upstreamStatus === undefined ? undefined : `HTTP ${upstreamStatus}`,
    named === undefined ? undefined : `naming the field ${named}`,
    missing === undefined ? undefined : `without ${missing}`,
    unknown === undefined ? undefined : `with an unknown ${unknown}`,
  ];
  return parts.filter((part) => part !== undefined).join(' ');
}

/**
 * The one place a read the product relies on is declared answered unexpectedly (a 404 where the
 * reservation exists, a 400 naming a field, a 2xx without a field it needs): one operator line, the
 * metric, the record `/health` shows, and the error the caller throws, so nothing is sent on its word.
 */
@Injectable()
export class UnexpectedAnswers {
  private readonly logger = new Logger('PlatformAnswers');
  private readonly seen = new Map<string, UnexpectedOperation>();

  constructor(
    private readonly metrics: UpstreamMetrics,
    private readonly clock: Clock,
  ) {}

  /** Records the answer and returns the error to throw: 503 `platform_answer_unexpected`, with Retry-After. */
  raise(answer: UnexpectedAnswer): UpstreamError {
    const found = foundOf(answer);
    const { operation, upstreamStatus, missing, named, upstreamRequestId, reservationId, guestId } = answer;
    this.logger.error(
      { operation, upstreamStatus, missingField: missing, namedField: named, upstreamRequestId, reservationId, guestId },
      `the platform answered ${operation} unexpectedly (${found}); nothing was sent on its word: check the account (npm run platform:check)`,
    );
    this.metrics.unexpectedAnswers.inc({ operation });
    const count = (this.seen.get(operation)?.count ?? 0) + 1;
    this.seen.set(operation, { operation, count, lastAt: new Date(this.clock.now()).toISOString(), found });
    return new UpstreamError(
      'platform_answer_unexpected',
      'The booking platform answered in a way this service cannot rely on; nothing was sent. Please try again later.',
      // No upstreamStatus: callers read a 4xx there as a refusal or "not found", which this answer is not.
      { operation, upstreamRequestId, maybeSent: false, retryAfterSeconds: RETRY_AFTER_SECONDS },
    );
  }

  /** Each operation that answered unexpectedly on this replica, the latest first. */
  operations(): UnexpectedOperation[] {
    return [...this.seen.values()].sort((a, b) => b.lastAt.localeCompare(a.lastAt));
  }
}
