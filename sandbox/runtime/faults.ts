import type { DropConnectionOptions, ForceStatusOptions, SandboxRoute, SlowWriteOptions } from '../types';

export interface ForcedAnswer {
  status: number;
  body?: unknown;
  headers: Record<string, string>;
}

export interface SlowWrite {
  actAfterMs: number;
  answerAfterMs: number;
  dropAnswer: boolean;
}

export interface FaultDecision {
  drop?: { afterHandling: boolean };
  forced?: ForcedAnswer;
}

interface Countdown {
  /** Infinity when the fault never wears off. */
  remaining: number;
}

/** Faults tests aim at a route: delays, forced statuses and lost connections, each with an optional count. */
export class FaultPlan {
  private readonly delays = new Map<string, number>();
  private readonly forced = new Map<string, ForcedAnswer & Countdown>();
  private readonly drops = new Map<string, { afterHandling: boolean } & Countdown>();
  private readonly slowWrites = new Map<string, SlowWrite & Countdown>();
  /** Slow writes waiting to act, per route: `actNow` wakes them. */
  private readonly waiting = new Map<string, Set<() => void>>();

  setDelay(route: SandboxRoute, ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new Error('A route delay is a non-negative number of ms');
    if (ms === 0) this.delays.delete(route);
    else this.delays.set(route, ms);
  }

  delayOf(route: string): number {
    return this.delays.get(route) ?? 0;
  }

  force(route: SandboxRoute, status: number, options: ForceStatusOptions = {}): void {
    if (!Number.isInteger(status) || status < 100 || status > 599) throw new Error(`Not an HTTP status: ${status}`);
    this.forced.set(route, {
      status,
      body: options.body,
      headers: { ...(options.headers ?? {}) },
      remaining: options.times ?? Infinity,
    });
  }

  drop(route: SandboxRoute, options: DropConnectionOptions = {}): void {
    this.drops.set(route, { afterHandling: options.afterHandling ?? false, remaining: options.times ?? Infinity });
  }

  slowWrite(route: SandboxRoute, options: SlowWriteOptions): void {
    const { actAfterMs, answerAfterMs = actAfterMs, dropAnswer = false, times = Infinity } = options;
    if (!Number.isFinite(actAfterMs) || actAfterMs < 0) throw new Error('A slow write acts after a non-negative number of ms');
    if (!Number.isFinite(answerAfterMs) || answerAfterMs < actAfterMs) {
      throw new Error('A slow write answers after it acts: answerAfterMs must be at least actAfterMs');
    }
    this.slowWrites.set(route, { actAfterMs, answerAfterMs, dropAnswer, remaining: times });
  }

  /** Registers a slow write waiting to act; answers how to forget it once it acted. */
  waitToAct(route: string, wake: () => void): () => void {
    const set = this.waiting.get(route) ?? new Set<() => void>();
    set.add(wake);
    this.waiting.set(route, set);
    return () => set.delete(wake);
  }

  /** The route's slow writes waiting to act act now; answers how many there were. */
  actNow(route: SandboxRoute): number {
    const set = this.waiting.get(route);
    const woken = [...(set ?? [])];
    set?.clear();
    for (const wake of woken) wake();
    return woken.length;
  }

  clear(): void {
    this.slowWrites.clear();
    this.delays.clear();
    this.forced.clear();
    this.drops.clear();
  }

  /** Consumes one slow write aimed at this route, taken when the request arrives. */
  takeSlowWrite(route: string): SlowWrite | undefined {
    const slow = this.slowWrites.get(route);
    if (!slow) return undefined;
    if (--slow.remaining <= 0) this.slowWrites.delete(route);
    return { actAfterMs: slow.actAfterMs, answerAfterMs: slow.answerAfterMs, dropAnswer: slow.dropAnswer };
  }

  /** Consumes one use of whichever fault applies to this request; a dropped request uses no forced status. */
  take(route: string): FaultDecision {
    const drop = this.drops.get(route);
    if (drop) {
      if (--drop.remaining <= 0) this.drops.delete(route);
      return { drop: { afterHandling: drop.afterHandling } };
    }
    const forced = this.forced.get(route);
    if (forced) {
      if (--forced.remaining <= 0) this.forced.delete(route);
      return { forced: { status: forced.status, body: forced.body, headers: forced.headers } };
    }
    return {};
  }
}
