import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { DomainError } from '../common/errors/domain-error';
import { AppConfig, RateLimit } from '../config/app-config';
import { MetricsService } from '../metrics/metrics.service';
import { KeyValueStore, SlotAnswer, SlotWindow } from '../redis/key-value-store';
import { MemoryKeyValueStore } from '../redis/memory-key-value-store';
import { RedisKeys } from '../redis/redis-keys';

/**
 * Who a call is for, in the order the budget serves them (docs/product-spec.md §7): `checkout` (a guest's writes
 * and the reads they need), `session` (reads for an open session, e.g. payment-status), `background`
 * (operators, webhooks, sweeps), `anonymous` (public reads: listing summaries, calendars, quotes),
 * which also may use at most UPSTREAM_ANONYMOUS_SHARE % of every window.
 */
export type Priority = 'checkout' | 'session' | 'background' | 'anonymous';

/**
 * Added to every window: the limiter counts a call when it grants the slot, the platform when the
 * request arrives. A grant is spent within GRANT_LIFETIME_MS or taken again, so grant and arrival
 * differ by at most that plus the network's jitter, and no platform window of the configured
 * (published) limits can hold more than one of ours (docs/product-spec.md §7).
 */
export const WINDOW_SAFETY_MARGIN_MS = 500;

/**
 * How long a granted slot may wait before its request leaves. A replica whose loop stalled past it
 * (a long garbage collection, a busy core) takes a new slot: sent late on the old one, it could
 * arrive in one platform window with the calls granted after it. The stale slot stays counted.
 */
export const GRANT_LIFETIME_MS = 150;

/** A slot in every window, granted at `grantedAt` (epoch ms). */
export interface SlotGrant {
  grantedAt: number;
}

/** Spreads waiters that were told the same retry time, so they don't all ask Redis at once. */
const MAX_JITTER_MS = 25;

/** Share of each window that background (and anonymous) calls leave free for checkout calls. */
const BACKGROUND_HEADROOM = 0.1;

/**
 * How long an anonymous caller waits for a slot at most: a public read that cannot be served soon is
 * answered 503 with Retry-After at once rather than holding a connection while checkouts wait.
 */
export const ANONYMOUS_MAX_WAIT_MS = 1_000;

/**
 * While Redis is unreachable each replica keeps serving with a local budget of this share of every
 * window (sized for the 3 replicas of the reference deployment); a 429 still pauses it.
 */
export const LOCAL_FALLBACK_SHARE = 1 / 3;

/**
 * The one outbound budget of the Open API, shared by every replica through the store: a caller
 * waits for a slot up to its deadline, then gets `rate_limited`, and an upstream 429 pauses every
 * replica. While Redis is down a local share of each window stands in, so reads needing only the
 * cached token keep working.
 */
@Injectable()
export class OutboundRateLimiter {
  private readonly keysFor: Record<Priority, string[]>;
  private readonly pauseKey: string;
  private readonly windowsFor: Record<Priority, SlotWindow[]>;
  private readonly localWindowsFor: Record<Priority, SlotWindow[]>;
  private readonly local = new MemoryKeyValueStore();
  private usingLocal = false;
  private readonly logger = new Logger('OutboundBudget');

  constructor(
    @Inject(KeyValueStore) private readonly store: KeyValueStore,
    @Inject(RedisKeys) keys: RedisKeys,
    @Inject(ConfigService) config: ConfigService<AppConfig, true>,
    @Inject(MetricsService) private readonly metrics: MetricsService,
  ) {
    const limits = config.get('upstreamRateLimits', { infer: true });
    const sharePercent = config.get('budget', { infer: true }).anonymousSharePercent;
    const budget = keys.upstreamBudget();
    const windowKeys = budget.windowKeys(limits);
    // Anonymous calls also count in logs of their own, capped at their share: one more window each,
    // checked and taken in the same atomic step as the budget's windows (all or none).
    const shareKeys = keys.upstreamShare('anonymous', limits);
    this.keysFor = { checkout: windowKeys, session: windowKeys, background: windowKeys, anonymous: [...windowKeys, ...shareKeys] };
    this.pauseKey = budget.pause;
    this.windowsFor = windowsByPriority(limits, sharePercent);
    const localLimits = limits.map((limit) => ({ ...limit, limit: Math.max(1, Math.floor(limit.limit * LOCAL_FALLBACK_SHARE)) }));
    this.localWindowsFor = windowsByPriority(localLimits, sharePercent);
  }

  /**
   * Resolves once this caller holds a slot in every window. `deadline` is epoch ms (Date.now()).
   * Throws `rate_limited` (503, Retry-After) as soon as no slot can free before the deadline.
   * The caller sends at once, and asks `expired` just before it does.
   */
  async acquire(priority: Priority, deadline: number): Promise<SlotGrant> {
    const started = Date.now();
    if (priority === 'anonymous') deadline = Math.min(deadline, started + ANONYMOUS_MAX_WAIT_MS);
    const member = randomUUID();
    for (;;) {
      const answer = await this.takeSlot(priority, member);
      if (answer.granted) {
        const grantedAt = Date.now();
        this.metrics.upstreamLimiterWait.observe({ priority }, (grantedAt - started) / 1000);
        return { grantedAt };
      }
      const left = deadline - Date.now();
      // retryAfterMs is the earliest a slot can free: waiting less than that cannot help.
      if (answer.retryAfterMs >= left) throw this.refusal(priority, answer.retryAfterMs);
      await sleep(Math.min(answer.retryAfterMs + Math.random() * MAX_JITTER_MS, left));
    }
  }

  /** True when the grant is too old to send on (see GRANT_LIFETIME_MS): the caller acquires again. */
  expired(grant: SlotGrant): boolean {
    if (Date.now() - grant.grantedAt <= GRANT_LIFETIME_MS) return false;
    this.metrics.upstreamLimiterExpiredGrants.inc();
    return true;
  }

  /** Called when the upstream answers 429: every replica holds its calls for `retryAfterSeconds`. */
  async pauseAll(retryAfterSeconds: number): Promise<void> {
    // A 429 without a usable Retry-After still means "slow down": pause for a second.
    const seconds = Number.isFinite(retryAfterSeconds) && retryAfterSeconds > 0 ? retryAfterSeconds : 1;
    this.metrics.upstreamLimiterPauses.inc();
    await this.local.pauseSlots(this.pauseKey, seconds * 1000);
    await this.store.pauseSlots(this.pauseKey, seconds * 1000).catch((cause: unknown) => this.fallBack(cause));
  }

  private async takeSlot(priority: Priority, member: string): Promise<SlotAnswer> {
    const windowKeys = this.keysFor[priority];
    try {
      const answer = await this.store.takeSlot({ windowKeys, pauseKey: this.pauseKey, windows: this.windowsFor[priority], member });
      if (this.usingLocal) {
        this.usingLocal = false;
        this.logger.log('Redis is back: the shared outbound budget is in use again');
      }
      return answer;
    } catch (cause) {
      this.fallBack(cause);
      return this.local.takeSlot({ windowKeys, pauseKey: this.pauseKey, windows: this.localWindowsFor[priority], member });
    }
  }

  private fallBack(cause: unknown): void {
    if (this.usingLocal) return;
    this.usingLocal = true;
    this.logger.warn(
      { err: cause },
      `Redis is unreachable: using a local outbound budget (${Math.round(LOCAL_FALLBACK_SHARE * 100)} % of each window) until it is back`,
    );
  }

  private refusal(priority: Priority, retryAfterMs: number): DomainError {
    this.metrics.upstreamLimiterRefusals.inc({ priority });
    if (priority === 'anonymous') this.metrics.upstreamShareRefusals.inc({ share: priority });
    return new DomainError('rate_limited', 'The booking platform is busy; try again shortly.', {
      status: 503,
      retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)),
    });
  }
}

function slotWindow(limit: RateLimit, reserve: number): SlotWindow {
  return { limit: limit.limit, windowMs: limit.windowMs + WINDOW_SAFETY_MARGIN_MS, reserve };
}

/** At least one slot, but never the whole window: with a limit of 1, background calls still run. */
function backgroundReserve(limit: number): number {
  return Math.min(limit - 1, Math.max(1, Math.floor(limit * BACKGROUND_HEADROOM)));
}

/**
 * The windows each priority is judged by: every priority leaves the ones above it headroom (reads
 * for an open session half of what background calls leave), and anonymous calls also have their
 * share's windows, in the order of RedisKeys.upstreamShare's keys.
 */
function windowsByPriority(limits: readonly RateLimit[], sharePercent: number): Record<Priority, SlotWindow[]> {
  const background = limits.map((limit) => slotWindow(limit, backgroundReserve(limit.limit)));
  return {
    checkout: limits.map((limit) => slotWindow(limit, 0)),
    session: limits.map((limit) => slotWindow(limit, Math.floor(backgroundReserve(limit.limit) / 2))),
    background,
    anonymous: [...background, ...limits.map((limit) => slotWindow({ ...limit, limit: anonymousLimit(limit.limit, sharePercent) }, 0))],
  };
}

/** At most the share, rounded down: a share of 0 keeps anonymous calls off the upstream entirely. */
export function anonymousLimit(limit: number, sharePercent: number): number {
  return Math.floor((limit * sharePercent) / 100);
}
