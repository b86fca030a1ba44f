import { Balancer } from './balancer';
import { awaitConfirmedBookings, awaitSettledSessions, checkInvariants, type Violation } from './invariants';
import { Ledger } from './ledger';
import { runOperation } from './operations';
import {
  describeOperation,
  describeStep,
  FAULT_KINDS,
  faultTimeline,
  type FaultKind,
  type FaultStep,
  OPERATION_KINDS,
  type OperationKind,
  planOperations,
  type TimelineFaultKind,
} from './schedule';
import type { ChaosWorld } from './world';

export interface CampaignOptions {
  seed: number;
  operations: number;
  /** Guests at once. */
  concurrency?: number;
  operationKinds?: readonly OperationKind[];
  faultKinds?: readonly TimelineFaultKind[];
  /** Each operation and fault step as it starts (for a replayed seed). */
  trace?: (line: string) => void;
}

export interface CampaignReport {
  seed: number;
  operations: number;
  operationsByKind: Partial<Record<OperationKind, number>>;
  /** Operations that ended before their write, and why (not findings: the guest gave up on a read). */
  abandoned: { operation: number; why: string }[];
  faults: Partial<Record<FaultKind, number>>;
  violations: Violation[];
  durationMs: number;
}

/** How often the sweep tries a follow-up again (src/journal/follow-ups.ts). */
const FOLLOW_UP_RETRY_MS = 15_000;

/** The sweep runs every 5 s (plus up to 1 s of jitter): an intent settles by its next pass after the horizon. */
const SWEEP_MS = 6_000;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One campaign: the seed's guests on the world's replicas while its fault timeline runs, then, once
 * the faults have stopped and the horizon has passed, every invariant against the platform's record.
 */
export async function runCampaign(world: ChaosWorld, options: CampaignOptions): Promise<CampaignReport> {
  const started = Date.now();
  const trace = options.trace ?? (() => undefined);
  const ledger = new Ledger();
  const balancer = new Balancer(world);
  const horizonMs = world.timing.settleSeconds * 1_000;
  // A Redis that lost data holds writes for a horizon, and a write unknown after that takes one more.
  const openLimitMs = 2 * horizonMs + SWEEP_MS + world.timing.upstreamTimeoutMs * 2;
  const plans = planOperations(options.seed, options.operations, options.operationKinds ?? OPERATION_KINDS);

  let guestsDone = false;
  const faults = (async () => {
    for (const step of faultTimeline(options.seed, world.timing, options.faultKinds ?? FAULT_KINDS)) {
      await pause(step.afterMs);
      if (guestsDone) return;
      trace(`fault ${describeStep(step)}`);
      ledger.countFault(step.kind);
      await inject(world, step);
    }
  })();

  let next = 0;
  const guest = async () => {
    while (next < plans.length) {
      const plan = plans[next++];
      trace(`operation ${describeOperation(plan)}`);
      await runOperation({ world, balancer, ledger, plan, openLimitMs, cardsTyped: 0 });
      ledger.completed.set(plan.kind, (ledger.completed.get(plan.kind) ?? 0) + 1);
    }
  };
  try {
    await Promise.all(Array.from({ length: options.concurrency ?? 3 }, guest));
  } finally {
    guestsDone = true;
    await faults;
    world.sandbox.control.clearFaults();
  }
  await awaitSettledSessions(balancer, ledger, openLimitMs);
  // A confirmation left to the sweep is due its grace after the card, then tried every 15 s.
  await awaitConfirmedBookings(world, ledger, openLimitMs + FOLLOW_UP_RETRY_MS);
  const violations = await checkInvariants(world, balancer, ledger);
  return {
    seed: options.seed,
    operations: plans.length,
    operationsByKind: Object.fromEntries(ledger.completed),
    abandoned: ledger.abandoned,
    faults: Object.fromEntries(ledger.faults),
    violations,
    durationMs: Date.now() - started,
  };
}

/** One fault, carried out to its end (a frozen replica thawed, a killed one or Redis started again). */
async function inject(world: ChaosWorld, step: FaultStep): Promise<void> {
  const control = world.sandbox.control;
  switch (step.kind) {
    case 'slow_write':
      control.slowWrite(step.route, { actAfterMs: step.actAfterMs, answerAfterMs: step.answerAfterMs, times: 1 });
      return;
    case 'answer_dropped':
      control.slowWrite(step.route, { actAfterMs: step.actAfterMs, dropAnswer: true, times: 1 });
      return;
    case 'redis_restart':
      await world.redis.primary.stop();
      await pause(step.downMs);
      await world.redis.primary.start();
      return;
    case 'redis_emptied':
      await world.redis.primary.restartEmpty();
      return;
    case 'redis_failover': {
      const { primary, replica, proxy } = world.redis;
      // Replication is asynchronous: the replica is cut off and promoted while the service still
      // writes to the primary, so what the primary takes meanwhile is lost with it. (A paused replica
      // would not do: the kernel still hands it what the primary had sent.)
      await replica.follow(null);
      await pause(step.lagMs);
      await primary.stop();
      proxy.pointAt(replica.port);
      await primary.start();
      await primary.follow(replica.port);
      world.redis.primary = replica;
      world.redis.replica = primary;
      return;
    }
    case 'replica_frozen': {
      const replica = world.replicas[step.replica];
      replica.freeze();
      await pause(step.frozenMs);
      replica.thaw();
      return;
    }
    case 'replica_killed': {
      const replica = world.replicas[step.replica];
      await replica.kill();
      await pause(step.downMs);
      await replica.start();
      return;
    }
  }
}
