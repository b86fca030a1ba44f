import { Random } from './random';
import { CAMPAIGN_TIMING, describeOperation, describeStep, FAULT_KINDS, faultTimeline, planOperations } from './schedule';

const firstSteps = (seed: number, count: number) => {
  const steps: string[] = [];
  for (const step of faultTimeline(seed, CAMPAIGN_TIMING)) {
    steps.push(describeStep(step));
    if (steps.length === count) return steps;
  }
  return steps;
};

describe('a campaign schedule is its seed', () => {
  it('replays the same operations, choices and fault timeline from the same seed, and another from another seed', () => {
    const plan = (seed: number) =>
      planOperations(seed, 30).map((operation) => `${describeOperation(operation)} ${operation.random.next()}`);
    expect(plan(42)).toEqual(plan(42));
    expect(firstSteps(42, 40)).toEqual(firstSteps(42, 40));
    expect(plan(43)).not.toEqual(plan(42));
    expect(firstSteps(43, 40)).not.toEqual(firstSteps(42, 40));
  });

  it('keeps the real relations at the campaign scale: late writes up to 2.5 timeouts, freezes longer than the lease', () => {
    const steps = faultTimeline(9, CAMPAIGN_TIMING);
    const seen = Array.from({ length: 400 }, () => steps.next().value!);
    const late = seen.flatMap((step) => (step.kind === 'slow_write' ? [step] : []));
    const frozen = seen.flatMap((step) => (step.kind === 'replica_frozen' ? [step] : []));
    expect(late.some((step) => step.answerAfterMs > CAMPAIGN_TIMING.upstreamTimeoutMs)).toBe(true);
    expect(
      late.every((step) => step.actAfterMs <= step.answerAfterMs && step.answerAfterMs <= 2.5 * CAMPAIGN_TIMING.upstreamTimeoutMs),
    ).toBe(true);
    expect(frozen.length).toBeGreaterThan(0);
    expect(frozen.every((step) => step.frozenMs > CAMPAIGN_TIMING.leaseMs)).toBe(true);
    expect(new Set(seen.map((step) => step.kind))).toEqual(new Set(FAULT_KINDS));
  });

  it('draws whole numbers below the bound, evenly enough that every value shows', () => {
    const random = new Random(5);
    const counts = [0, 0, 0];
    for (let i = 0; i < 3_000; i += 1) counts[random.int(3)] += 1;
    expect(counts.every((count) => count > 800)).toBe(true);
  });
});
