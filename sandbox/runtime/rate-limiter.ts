import type { SandboxRateLimits } from '../types';

const WINDOWS = [
  { key: 'perSecond', header: 'Second', ms: 1_000 },
  { key: 'perMinute', header: 'Minute', ms: 60_000 },
  { key: 'perHour', header: 'Hour', ms: 3_600_000 },
] as const;

export const DEFAULT_RATE_LIMITS: SandboxRateLimits = { perSecond: 15, perMinute: 120, perHour: 5000 };

export interface RateDecision {
  allowed: boolean;
  /** Whole seconds until the request would be allowed (≥ 1); only when refused. */
  retryAfterSeconds?: number;
  headers: Record<string, string>;
}

/** Count of entries ≥ from in an ascending list. */
function countSince(times: number[], from: number): number {
  let low = 0;
  let high = times.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (times[mid] < from) low = mid + 1;
    else high = mid;
  }
  return times.length - low;
}

/**
 * Sliding windows per account, as the upstream's limits are per account and shared by all tokens.
 * Refused requests are not recorded, so a client that honours Retry-After gets through.
 */
export class SlidingWindowLimiter {
  private readonly accepted = new Map<string, number[]>();

  constructor(private limits: SandboxRateLimits) {}

  setLimits(limits: Partial<SandboxRateLimits>): void {
    const next = { ...this.limits, ...limits };
    for (const { key } of WINDOWS) {
      if (!Number.isInteger(next[key]) || next[key] < 1) throw new Error(`Rate limit ${key} must be an integer ≥ 1`);
    }
    this.limits = next;
  }

  /** The current state without counting a request (for answers refused before the limiter). */
  peek(account: string, now: number): Record<string, string> {
    const times = this.prune(account, now);
    return this.headers(WINDOWS.map(({ ms }) => countSince(times, now - ms + 1)));
  }

  check(account: string, now: number): RateDecision {
    const times = this.prune(account, now);
    const counts = WINDOWS.map(({ ms }) => countSince(times, now - ms + 1));
    let retryAfterMs = 0;
    WINDOWS.forEach(({ key, ms }, index) => {
      const limit = this.limits[key];
      if (counts[index] < limit) return;
      const firstInWindow = times.length - counts[index];
      const freedAt = times[firstInWindow + counts[index] - limit] + ms;
      retryAfterMs = Math.max(retryAfterMs, freedAt - now);
    });
    if (retryAfterMs > 0) {
      return {
        allowed: false,
        retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)),
        headers: this.headers(counts),
      };
    }
    times.push(now);
    return { allowed: true, headers: this.headers(counts.map((count) => count + 1)) };
  }

  private prune(account: string, now: number): number[] {
    const times = this.accepted.get(account) ?? [];
    const keepFrom = times.length - countSince(times, now - WINDOWS[2].ms + 1);
    const kept = keepFrom > 0 ? times.slice(keepFrom) : times;
    this.accepted.set(account, kept);
    return kept;
  }

  private headers(counts: number[]): Record<string, string> {
    const headers: Record<string, string> = {};
    WINDOWS.forEach(({ key, header }, index) => {
      headers[`X-RateLimit-Limit-${header}`] = String(this.limits[key]);
      headers[`X-RateLimit-Remaining-${header}`] = String(Math.max(0, this.limits[key] - counts[index]));
    });
    return headers;
  }
}
