import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Histogram } from 'prom-client';
import { MetricsService } from '../metrics/metrics.service';

/** The upstream's side of /metrics: calls, latency, token mints and unexpected answers. */
@Injectable()
export class UpstreamMetrics {
  readonly calls: Counter<'operation' | 'status'>;
  readonly latency: Histogram<'operation'>;
  readonly tokensMinted: Counter<'reason'>;
  readonly tokenBudgetLeft: Gauge;
  readonly unexpectedAnswers: Counter<'operation'>;

  constructor(metrics: MetricsService) {
    const registers = [metrics.registry];
    this.calls = new Counter({
      name: 'upstream_requests_total',
      help: 'Calls to the upstream, by operation and HTTP status (or error kind when no answer came)',
      labelNames: ['operation', 'status'] as const,
      registers,
    });
    this.latency = new Histogram({
      name: 'upstream_request_duration_seconds',
      help: 'Latency of upstream calls, by operation',
      labelNames: ['operation'] as const,
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.tokensMinted = new Counter({
      name: 'upstream_tokens_minted_total',
      help: 'Access tokens minted by this instance, by reason (initial, refresh, rejected)',
      labelNames: ['reason'] as const,
      registers,
    });
    this.tokenBudgetLeft = new Gauge({
      name: 'upstream_token_budget_left',
      help: 'Tokens this service may still mint in the rolling 24 h (after the reserve), as last seen',
      registers,
    });
    this.unexpectedAnswers = new Counter({
      name: 'upstream_unexpected_answers_total',
      help: 'Reads the product relies on that the platform answered unexpectedly (a 404 where the reservation exists, a 400 naming a field, a 2xx without a needed field), by operation',
      labelNames: ['operation'] as const,
      registers,
    });
  }
}
