import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { TalliedCounter, TalliedHistogram } from './tallies';

/** One registry per app instance, so several instances in one process (tests) keep apart. */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();

  // Recorded on every request: tallied (resolved once per label set), not hashed per call.
  readonly httpRequests = new TalliedCounter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registry: this.registry,
  });

  readonly httpDuration = new TalliedHistogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registry: this.registry,
  });

  readonly upstreamLimiterWait = new Histogram({
    name: 'upstream_limiter_wait_seconds',
    help: 'Time a caller waited for a slot of the shared outbound budget before it was granted, by priority',
    labelNames: ['priority'] as const,
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10],
    registers: [this.registry],
  });

  readonly upstreamLimiterRefusals = new Counter({
    name: 'upstream_limiter_refusals_total',
    help: 'Callers refused by the shared outbound budget (no slot before their deadline), by priority',
    labelNames: ['priority'] as const,
    registers: [this.registry],
  });

  readonly upstreamLimiterPauses = new Counter({
    name: 'upstream_limiter_pauses_total',
    help: 'Shared pauses of the outbound budget set after an upstream 429',
    registers: [this.registry],
  });

  readonly upstreamLimiterExpiredGrants = new Counter({
    name: 'upstream_limiter_expired_grants_total',
    help: 'Slots of the outbound budget taken again because the request had not left soon enough after its grant (a stalled loop)',
    registers: [this.registry],
  });

  readonly idempotentReplays = new Counter({
    name: 'idempotent_replays_total',
    help: 'Requests answered from a stored Idempotency-Key record instead of running again, by scope kind',
    labelNames: ['scope'] as const,
    registers: [this.registry],
  });

  readonly requestLimitRefusals = new Counter({
    name: 'request_limit_refusals_total',
    help: 'Requests refused by an abuse guard (client_ip, client_ip_read, card_attempts, sessions, reservation_misses, booking_holds, unpaid_holds, unpaid_nights, admin_keys), by limit',
    labelNames: ['limit'] as const,
    registers: [this.registry],
  });

  readonly anonymousRecords = new Counter({
    name: 'anonymous_records_total',
    help: "Request-limit logs anonymous traffic made (one per client network and limit), by where: store (Redis, within ANONYMOUS_RECORDS_PER_HOUR) or here (this replica's memory, past it)",
    labelNames: ['where'] as const,
    registers: [this.registry],
  });

  readonly anonymousRecordsCeilingReached = new Gauge({
    name: 'anonymous_records_ceiling_reached',
    help: '1 while ANONYMOUS_RECORDS_PER_HOUR is reached, as this replica last heard: new client networks are counted in its memory',
    registers: [this.registry],
  });

  readonly webhookEvents = new Counter({
    name: 'webhook_events_total',
    help: 'Platform webhooks received, by event type (unknown for unsigned or unreadable ones) and outcome (accepted, duplicate, bad_signature, malformed, ignored)',
    labelNames: ['type', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly paymentDiagnoses = new Counter({
    name: 'payment_diagnoses_total',
    help: 'Payment diagnostics answered (checkout payment-status and admin), by diagnosis code',
    labelNames: ['code'] as const,
    registers: [this.registry],
  });

  readonly sessionTransitions = new Counter({
    name: 'checkout_session_transitions_total',
    help: 'Checkout sessions entering a status (requires_payment_method on creation, then requires_action, succeeded, failed)',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });

  readonly cacheLookups = new TalliedCounter({
    name: 'cache_lookups_total',
    help: 'Shared cache lookups, by cache and result (hit, miss)',
    labelNames: ['cache', 'result'] as const,
    registry: this.registry,
  });

  readonly redisCommands = new Counter({
    name: 'redis_commands_total',
    help: 'Commands this replica sent to Redis (round trips; a script counts once)',
    registers: [this.registry],
  });

  readonly journalIntents = new Counter({
    name: 'reservation_write_intents_total',
    help: 'Upstream writes on reservations by kind and the state they reached (landed, refused, unknown, not_landed)',
    labelNames: ['kind', 'state'] as const,
    registers: [this.registry],
  });

  readonly outboxKept = new Gauge({
    name: 'store_outbox_kept_writes',
    help: 'Writes recording an upstream outcome that the store has not taken yet (kept in memory, retried)',
    registers: [this.registry],
  });

  readonly threeDsReturns = new Counter({
    name: 'three_ds_returns_total',
    help: '3-D Secure returns, by outcome (succeeded, failed, refused: a forged, replayed or stale state)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly tokenClaimReleases = new Counter({
    name: 'upstream_token_claim_releases_total',
    help: 'Re-mint claims given back because the mint failed (the next request may try again)',
    registers: [this.registry],
  });

  readonly adminKeyFailures = new Counter({
    name: 'admin_key_failures_total',
    help: 'Operator routes called with a wrong or missing operator key',
    registers: [this.registry],
  });

  readonly confirmationsWithheld = new Counter({
    name: 'booking_confirmations_withheld_total',
    help: 'Paid bookings not confirmed because the platform showed them ended (canceled, declined, closed, expired, an inquiry) when the confirmation was due',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });

  readonly followUpsRefused = new Counter({
    name: 'journal_follow_ups_refused_total',
    help: 'Writes that had to follow a landed one (a booking confirmation after its card) and that the platform refused',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });

  readonly storeLosses = new Counter({
    name: 'journal_store_losses_total',
    help: 'Times this replica found Redis had lost the journal (restarted empty): writes waited for the settle horizon',
    registers: [this.registry],
  });

  readonly intentsUnreplicated = new Counter({
    name: 'journal_intents_unreplicated_total',
    help: 'Writes not sent because no Redis replica acknowledged their intent in time (REDIS_WAIT_REPLICAS)',
    registers: [this.registry],
  });

  readonly tokenRefusalsKept = new Counter({
    name: 'upstream_token_refusals_kept_total',
    help: "401/403 answers taken as the platform's refusal, not the token's: no token minted (the day's re-mint was spent)",
    registers: [this.registry],
  });

  readonly upstreamShareRefusals = new Counter({
    name: 'upstream_share_refusals_total',
    help: 'Calls with a capped share of the outbound budget (anonymous reads) refused for want of a slot, by share',
    labelNames: ['share'] as const,
    registers: [this.registry],
  });

  readonly paymentStatusChecks = new Counter({
    name: 'payment_status_checks_total',
    help: 'payment-status answers by source: upstream (this replica read the reservation), cached or coalesced (an upstream read saved)',
    labelNames: ['source'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** Each route's answers by method and status, resolved once (route templates, methods and statuses are few). */
  private readonly httpRecorders = new Map<string, (seconds: number) => void>();

  recordHttp(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let record = this.httpRecorders.get(key);
    if (record === undefined) this.httpRecorders.set(key, (record = this.httpAnswers(method, route, status)));
    record(seconds);
  }

  /** The HTTP metrics of one route's answers with one status, resolved once: call it with each answer's seconds. */
  httpAnswers(method: string, route: string, status: number): (seconds: number) => void {
    const labels = { method, route, status: String(status) };
    const count = this.httpRequests.tally(labels);
    const duration = this.httpDuration.tally(labels);
    return (seconds) => {
      count.inc();
      duration.observe(seconds);
    };
  }
}
