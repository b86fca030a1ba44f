import { MetricsService } from '../metrics/metrics.service';
import { quietLogs, SteppingClock } from '../../test/utils/unit-kit';
import { UnexpectedAnswers } from './unexpected-answers';
import { UpstreamMetrics } from './upstream-metrics';

describe('the platform answering a relied-on read unexpectedly', () => {
  beforeAll(quietLogs);

  function world() {
    const metrics = new MetricsService();
    const clock = new SteppingClock();
    return { metrics, clock, answers: new UnexpectedAnswers(new UpstreamMetrics(metrics), clock) };
  }

  it('answers the guest 503 platform_answer_unexpected with Retry-After, carrying no status a caller could read as "not found"', () => {
    const error = world().answers.raise({ operation: 'listPayments', upstreamStatus: 404 });
    expect(error).toMatchObject({ code: 'platform_answer_unexpected', status: 503, operation: 'listPayments', maybeSent: false });
    expect(error.retryAfterSeconds).toBeGreaterThan(0);
    expect(error.upstreamStatus).toBeUndefined();
  });

  it('counts each occurrence per operation and shows each operation once, the latest first, with what came back', async () => {
    const { metrics, clock, answers } = world();
    answers.raise({ operation: 'listPayments', upstreamStatus: 404 });
    clock.time += 1_000;
    answers.raise({ operation: 'getFolioOverview', upstreamStatus: 400, named: 'fields' });
    clock.time += 1_000;
    answers.raise({ operation: 'listPayments', missing: "a payment's status", reservationId: 'res-1' });
    expect(answers.operations()).toEqual([
      { operation: 'listPayments', count: 2, lastAt: new Date(clock.time).toISOString(), found: "without a payment's status" },
      {
        operation: 'getFolioOverview',
        count: 1,
        lastAt: new Date(clock.time - 1_000).toISOString(),
        found: 'HTTP 400 naming the field fields',
      },
    ]);
    const text = await metrics.registry.metrics();
    expect(text).toContain('upstream_unexpected_answers_total{operation="listPayments"} 2');
    expect(text).toContain('upstream_unexpected_answers_total{operation="getFolioOverview"} 1');
    // The reservation is the operator's to read in the log line, not anyone's in /health.
    expect(JSON.stringify(answers.operations())).not.toContain('res-1');
  });
});
