import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { AppConfig, RateLimit } from '../../config/app-config';
import { MetricsService } from '../../metrics/metrics.service';
import { KeyValueStore, SlotAnswer, SlotRequest } from '../../redis/key-value-store';
import type { RequestLimitName } from '../../redis/redis-keys';
import { MemoryKeyValueStore } from '../../redis/memory-key-value-store';
import { RedisKeys } from '../../redis/redis-keys';
import { DomainError } from '../errors/domain-error';
import { clientNetwork } from '../http/client-ip';

/**
 * Abuse guards of the checkout's routes, counted in the store so every replica shares them
 * (sliding-window logs: a burst at a window's edge cannot double the limit). The write guards fail
 * closed: when the store cannot count, the request is refused (503), never let through uncounted.
 * The read guard counts locally meanwhile (each replica the whole allowance), because the reads it
 * guards keep working without Redis and the outbound budget still bounds what they cost.
 */
@Injectable()
export class RequestLimits {
  private readonly ipLimit: RateLimit;
  private readonly cardLimit: RateLimit;
  private readonly sessionLimit: RateLimit;
  private readonly readLimit: RateLimit;
  private readonly local = new MemoryKeyValueStore();

  constructor(
    @Inject(KeyValueStore) private readonly store: KeyValueStore,
    @Inject(RedisKeys) private readonly keys: RedisKeys,
    @Inject(ConfigService) config: ConfigService<AppConfig, true>,
    @Inject(MetricsService) private readonly metrics: MetricsService,
  ) {
    const checkout = config.get('checkout', { infer: true });
    this.ipLimit = checkout.ipRateLimit;
    this.cardLimit = checkout.cardAttempts;
    this.sessionLimit = checkout.sessionsPerReservation;
    this.readLimit = config.get('budget', { infer: true }).ipReadLimit;
  }

  /**
   * One read of this client that may cost an upstream call (`CHECKOUT_IP_READ_LIMIT`: a listing
   * summary, a payment-status poll); throws 429 `rate_limited` when over.
   */
  async perClientIpRead(ip: string): Promise<void> {
    // A subject of its own under the client-ip limit: reads and writes are two allowances.
    const request = this.slotRequest('client-ip', `read:${clientNetwork(ip)}`, this.readLimit);
    const answer = await this.store.takeSlot(request).catch(() => this.local.takeSlot(request));
    if (!answer.granted) {
      this.refuse('client_ip_read', answer, 'Too many requests from your network. Please wait a moment and try again.');
    }
  }

  /** One request of this client (`CHECKOUT_IP_RATE_LIMIT`); throws 429 `rate_limited` when over. */
  async perClientIp(ip: string): Promise<void> {
    const answer = await this.take('client-ip', clientNetwork(ip), this.ipLimit);
    if (!answer.granted) {
      this.refuse('client_ip', answer, 'Too many requests from your network. Please wait a moment and try again.');
    }
  }

  /**
   * One card submission for this reservation that is about to reach the tokenization host
   * (`CHECKOUT_CARD_ATTEMPTS`, card-testing guard); throws 429 `rate_limited` when over. Call it
   * after the body is validated: invalid bodies never reach the host and do not count.
   */
  async cardAttempt(reservationId: string): Promise<void> {
    const answer = await this.take('card-attempts', reservationId, this.cardLimit);
    if (!answer.granted) {
      this.refuse('card_attempts', answer, 'Too many card attempts for this booking. Please wait before trying again, or contact us.');
    }
  }

  /**
   * One checkout session opened on this reservation (`CHECKOUT_SESSIONS_PER_RESERVATION`): sessions
   * are the way to more card attempts, so they are bounded too; throws 429 `rate_limited` when over.
   */
  async sessionOpened(reservationId: string): Promise<void> {
    const answer = await this.take('sessions', reservationId, this.sessionLimit);
    if (!answer.granted) {
      this.refuse('sessions', answer, 'Too many checkout attempts for this booking. Please wait before trying again, or contact us.');
    }
  }

  private async take(limit: RequestLimitName, subject: string, rate: RateLimit): Promise<SlotAnswer> {
    try {
      return await this.store.takeSlot(this.slotRequest(limit, subject, rate));
    } catch (cause) {
      throw DomainError.storeUnavailable(cause);
    }
  }

  private slotRequest(limit: RequestLimitName, subject: string, rate: RateLimit): SlotRequest {
    const keys = this.keys.requestLimit(limit, subject);
    return {
      windowKeys: [keys.window],
      pauseKey: keys.pause,
      windows: [{ limit: rate.limit, windowMs: rate.windowMs, reserve: 0 }],
      member: randomUUID(),
    };
  }

  private refuse(limit: 'client_ip' | 'client_ip_read' | 'card_attempts' | 'sessions', answer: SlotAnswer, detail: string): never {
    this.metrics.requestLimitRefusals.inc({ limit });
    throw new DomainError('rate_limited', detail, { status: 429, retryAfterSeconds: Math.max(1, Math.ceil(answer.retryAfterMs / 1000)) });
  }
}
