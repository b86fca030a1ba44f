import { Random } from './random';

/**
 * What a campaign does, decided by its seed alone: the guests' operations (each with its own stream
 * of choices) and the fault timeline that runs beside them. The interleaving of the two is the real
 * world's; the schedule itself replays exactly from the seed.
 */

export const OPERATION_KINDS = ['checkout', 'checkout_3ds', 'booking', 'replacement_card', 'two_sessions'] as const;
export type OperationKind = (typeof OPERATION_KINDS)[number];

export interface OperationPlan {
  index: number;
  kind: OperationKind;
  /** The same Idempotency-Key sent to two replicas at once (a double click across the balancer). */
  duplicateSubmission: boolean;
  /** The 3-D Secure return opened twice, on two replicas, 100 ms apart. */
  duplicateReturn: boolean;
  /** An extras line added once the card is on file. */
  extras: boolean;
  /** The stream every choice of this operation comes from (replicas, cards, timing). */
  random: Random;
}

export const FAULT_KINDS = [
  'slow_write',
  'answer_dropped',
  'redis_restart',
  'redis_emptied',
  'redis_failover',
  'replica_frozen',
  'replica_killed',
] as const;
export type TimelineFaultKind = (typeof FAULT_KINDS)[number];
/** Faults a guest's own behaviour injects, counted beside the timeline's. */
export type GuestFaultKind = 'duplicate_submission' | 'duplicate_3ds_return' | 'two_sessions';
export type FaultKind = TimelineFaultKind | GuestFaultKind;

/** The platform's write routes a slow or dropped answer is aimed at, with how often each is chosen. */
export const WRITE_ROUTES = [
  ['paymentMethods', 5],
  ['invoiceItems', 2],
  ['reservationFromQuote', 2],
  ['guests', 1],
  ['reservationStatus', 1],
] as const;
export type WriteRoute = (typeof WRITE_ROUTES)[number][0];

export type FaultStep =
  | { kind: 'slow_write'; afterMs: number; route: WriteRoute; actAfterMs: number; answerAfterMs: number }
  | { kind: 'answer_dropped'; afterMs: number; route: WriteRoute; actAfterMs: number }
  | { kind: 'redis_restart'; afterMs: number; downMs: number }
  /** The primary killed and started again with no data (its replica follows it, empty). */
  | { kind: 'redis_emptied'; afterMs: number }
  /** The replica is cut off and promoted while the primary takes writes for `lagMs`, then the primary dies: a lossy failover. */
  | { kind: 'redis_failover'; afterMs: number; lagMs: number }
  | { kind: 'replica_frozen'; afterMs: number; replica: number; frozenMs: number }
  | { kind: 'replica_killed'; afterMs: number; replica: number; downMs: number };

/** The service's clocks as the campaign configures them; faults are drawn relative to these. */
export interface CampaignTiming {
  upstreamTimeoutMs: number;
  leaseMs: number;
  settleSeconds: number;
}

/**
 * The clocks of a campaign: the platform slower than this timeout, freezes longer than this lease.
 * Here beside the schedule, not in world.ts, so the schedule's unit spec loads none of the simulator.
 */
export const CAMPAIGN_TIMING: CampaignTiming = { upstreamTimeoutMs: 2_000, leaseMs: 2_000, settleSeconds: 10 };

/** The production figures the fault sizes are taken from: an 8 s upstream timeout. */
const PRODUCTION_TIMEOUT_MS = 8_000;

export function planOperations(seed: number, count: number, kinds: readonly OperationKind[] = OPERATION_KINDS): OperationPlan[] {
  const random = new Random(seed, 1);
  const weights: Record<OperationKind, number> = { checkout: 4, checkout_3ds: 2, booking: 2, replacement_card: 1, two_sessions: 1 };
  const entries = kinds.map((kind) => [kind, weights[kind]] as const);
  return Array.from({ length: count }, (_, index) => {
    const kind = random.weighted(entries);
    return {
      index,
      kind,
      duplicateSubmission: random.chance(0.25),
      duplicateReturn: kind === 'checkout_3ds' && random.chance(0.5),
      extras: kind !== 'two_sessions' && random.chance(0.4),
      random: new Random(seed, 1_000 + index),
    };
  });
}

/**
 * The fault timeline, one step after another for as long as the guests run. Sizes keep the real
 * relations at the campaign's scale: a late write lands 0.5–20 s after it arrived at an 8 s timeout
 * (so often past ours), a frozen replica stays frozen 1.2–2.5 leases.
 */
export function* faultTimeline(
  seed: number,
  timing: CampaignTiming,
  kinds: readonly TimelineFaultKind[] = FAULT_KINDS,
): Generator<FaultStep> {
  const random = new Random(seed, 2);
  const scale = timing.upstreamTimeoutMs / PRODUCTION_TIMEOUT_MS;
  const weights: Record<TimelineFaultKind, number> = {
    slow_write: 4,
    answer_dropped: 3,
    redis_restart: 1,
    redis_emptied: 0.25,
    redis_failover: 0.5,
    replica_frozen: 2,
    replica_killed: 1,
  };
  const entries = kinds.map((kind) => [kind, weights[kind]] as const);
  // No kinds: the guests' own faults alone (duplicates, two sessions), the smallest schedule of a seed.
  if (entries.length === 0) return;
  for (;;) {
    const afterMs = Math.round(random.between(200, 1_500));
    const kind = random.weighted(entries);
    const route = random.weighted(WRITE_ROUTES);
    if (kind === 'slow_write') {
      const answerAfterMs = Math.round(random.between(500, 20_000) * scale);
      yield { kind, afterMs, route, actAfterMs: Math.round(answerAfterMs * random.between(0.3, 1)), answerAfterMs };
    } else if (kind === 'answer_dropped') {
      yield { kind, afterMs, route, actAfterMs: Math.round(random.between(0, 20_000) * scale) };
    } else if (kind === 'redis_restart') {
      yield { kind, afterMs, downMs: Math.round(random.between(200, 1_500)) };
    } else if (kind === 'redis_emptied') {
      yield { kind, afterMs };
    } else if (kind === 'redis_failover') {
      yield { kind, afterMs, lagMs: Math.round(random.between(100, 800)) };
    } else if (kind === 'replica_frozen') {
      yield { kind, afterMs, replica: random.int(3), frozenMs: Math.round(timing.leaseMs * random.between(1.2, 2.5)) };
    } else {
      yield { kind, afterMs, replica: random.int(3), downMs: Math.round(random.between(200, 1_000)) };
    }
  }
}

export function describeStep(step: FaultStep): string {
  switch (step.kind) {
    case 'slow_write':
      return `+${step.afterMs} ms slow_write ${step.route}: acts at ${step.actAfterMs} ms, answers at ${step.answerAfterMs} ms`;
    case 'answer_dropped':
      return `+${step.afterMs} ms answer_dropped ${step.route}: acts at ${step.actAfterMs} ms, no answer`;
    case 'redis_restart':
      return `+${step.afterMs} ms redis_restart: down ${step.downMs} ms`;
    case 'redis_emptied':
      return `+${step.afterMs} ms redis_emptied: the primary back with no data`;
    case 'redis_failover':
      return `+${step.afterMs} ms redis_failover: the replica cut off and promoted ${step.lagMs} ms before the primary dies`;
    case 'replica_frozen':
      return `+${step.afterMs} ms replica_frozen r${step.replica}: ${step.frozenMs} ms`;
    case 'replica_killed':
      return `+${step.afterMs} ms replica_killed r${step.replica}: restarted after ${step.downMs} ms`;
  }
}

export function describeOperation(plan: OperationPlan): string {
  const flags = [
    plan.duplicateSubmission && 'duplicate submission',
    plan.duplicateReturn && 'duplicate 3-D Secure return',
    plan.extras && 'extras',
  ].filter(Boolean);
  return `#${plan.index} ${plan.kind}${flags.length ? ` (${flags.join(', ')})` : ''}`;
}
