import { seedFixtures } from '../state/fixtures';
import type { SandboxStore } from '../state/store';
import {
  SANDBOX_CLIENT_ID,
  SANDBOX_CLIENT_SECRET,
  type RequestLogEntry,
  type SandboxCounters,
  type SandboxOptions,
  type SandboxRateLimits,
} from '../types';
import { SandboxClock } from './clock';
import { FaultPlan } from './faults';
import { DEFAULT_RATE_LIMITS, SlidingWindowLimiter } from './rate-limiter';

export interface ResolvedOptions {
  host: string;
  apiPort: number;
  payPort: number;
  clientId: string;
  clientSecret: string;
  rateLimits: SandboxRateLimits;
  tokensPerDay: number;
  tokenTtlSeconds: number;
  paymentVisibilityDelayMs: number;
  latencyMs: number;
  clock: () => number;
}

/** Keeps the request log bounded for long stand-alone runs. */
const REQUEST_LOG_LIMIT = 10_000;

function nonNegative(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) throw new Error(`Sandbox option ${name} must be a non-negative number`);
  return value;
}

export function resolveOptions(options: SandboxOptions = {}): ResolvedOptions {
  return {
    host: options.host ?? '127.0.0.1',
    apiPort: nonNegative('apiPort', options.apiPort ?? 0),
    payPort: nonNegative('payPort', options.payPort ?? 0),
    clientId: options.clientId ?? SANDBOX_CLIENT_ID,
    clientSecret: options.clientSecret ?? SANDBOX_CLIENT_SECRET,
    rateLimits: { ...DEFAULT_RATE_LIMITS, ...(options.rateLimits ?? {}) },
    tokensPerDay: nonNegative('tokensPerDay', options.tokensPerDay ?? 5),
    tokenTtlSeconds: nonNegative('tokenTtlSeconds', options.tokenTtlSeconds ?? 86_400),
    paymentVisibilityDelayMs: nonNegative('paymentVisibilityDelayMs', options.paymentVisibilityDelayMs ?? 500),
    latencyMs: nonNegative('latencyMs', options.latencyMs ?? 0),
    clock: options.clock ?? Date.now,
  };
}

function emptyCounters(): SandboxCounters {
  return { tokensMinted: 0, requests: {}, rateLimited: 0, tokenizeWithAuthorization: 0 };
}

/** Everything one sandbox instance knows; the hosts read it per request, so reset swaps it underneath them. */
export class SandboxRuntime {
  readonly clock: SandboxClock;
  readonly faults = new FaultPlan();
  store: SandboxStore;
  limiter: SlidingWindowLimiter;
  counters: SandboxCounters = emptyCounters();
  requestLog: RequestLogEntry[] = [];
  payUrl = '';

  constructor(readonly options: ResolvedOptions) {
    this.clock = new SandboxClock(options.clock);
    this.store = seedFixtures(this.clock.now());
    this.limiter = new SlidingWindowLimiter(options.rateLimits);
    this.limiter.setLimits({});
  }

  now(): number {
    return this.clock.now();
  }

  reset(): void {
    this.clock.reset();
    this.faults.clear();
    this.store = seedFixtures(this.clock.now());
    this.limiter = new SlidingWindowLimiter(this.options.rateLimits);
    this.counters = emptyCounters();
    this.requestLog = [];
  }

  log(entry: RequestLogEntry): void {
    this.requestLog.push(entry);
    if (this.requestLog.length > REQUEST_LOG_LIMIT) this.requestLog.splice(0, this.requestLog.length - REQUEST_LOG_LIMIT);
  }
}
