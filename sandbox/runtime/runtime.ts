import { seedFixtures } from '../state/fixtures';
import type { SandboxStore } from '../state/store';
import {
  type ActedRequest,
  SANDBOX_CLIENT_ID,
  SANDBOX_CLIENT_SECRET,
  type RequestLogEntry,
  type SandboxCounters,
  type SandboxOptions,
  type SandboxRateLimits,
  type SandboxRoute,
  type CalendarWebhookKind,
  startingReadings,
  type SandboxReadings,
} from '../types';
import { SandboxClock } from './clock';
import { FaultPlan } from './faults';
import { DEFAULT_RATE_LIMITS, SlidingWindowLimiter } from './rate-limiter';
import { settleDuePayments, type ChargeEvent } from '../state/charging';
import { calendarDays, dayMs, dayString, expireHolds } from '../state/booking-state';
import { folioTotals, roundMoney } from '../state/money';
import type { ReservationRecord } from '../state/records';
import { newWebhookSecret, WebhookSender } from './webhooks';

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
  mergeGuestsByEmail: boolean;
  clock: () => number;
  chargeSettleDelayMs: number;
  webhookSecret: string;
  webhookUrl?: string;
  legacyRoutes?: SandboxReadings['legacyRoutes'];
}

const BOTH_CALENDAR_WEBHOOKS: CalendarWebhookKind[] = ['calendar.updated.v2', 'listing.calendar.updated'];

/**
 * The payments events the sandbox sends: the only ones whose names are published and known to fire
 * (docs/upstream.md, "Webhooks of today"; 2026-09-02 removed events that never fired).
 */
const PAYMENT_EVENTS_SENT: readonly string[] = ['payments.received', 'payments.failed'];

/** The account a listing without a payment provider belongs to, in calendar webhooks. */
const SANDBOX_ACCOUNT_ID = 'acct-sandbox';

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
    mergeGuestsByEmail: options.mergeGuestsByEmail ?? true,
    clock: options.clock ?? Date.now,
    chargeSettleDelayMs: nonNegative('chargeSettleDelayMs', options.chargeSettleDelayMs ?? 500),
    webhookSecret: options.webhookSecret ?? newWebhookSecret(),
    webhookUrl: options.webhookUrl,
    legacyRoutes: options.legacyRoutes,
  };
}

interface ActedWaiter {
  route: SandboxRoute;
  times: number;
  seen: ActedRequest[];
  resolve: (acted: ActedRequest[]) => void;
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
  /** While true the scheduler charges nothing: what came due stays PENDING (control.holdCharges). */
  chargesHeld = false;
  readonly webhooks: WebhookSender;
  /** Which of the platform's calendar webhooks a calendar change sends (both, as the platform during its migration). */
  calendarWebhooks: CalendarWebhookKind[] = [...BOTH_CALENDAR_WEBHOOKS];
  readings: SandboxReadings;
  private actedWaiters: ActedWaiter[] = [];

  constructor(readonly options: ResolvedOptions) {
    this.clock = new SandboxClock(options.clock);
    this.webhooks = new WebhookSender(options.webhookSecret, () => this.clock.now());
    this.webhooks.target = options.webhookUrl;
    this.store = seedFixtures(this.clock.now());
    this.limiter = new SlidingWindowLimiter(options.rateLimits);
    this.limiter.setLimits({});
    this.readings = this.startingReadings();
  }

  private startingReadings(): SandboxReadings {
    const readings = startingReadings();
    return this.options.legacyRoutes ? { ...readings, legacyRoutes: this.options.legacyRoutes } : readings;
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
    this.chargesHeld = false;
    this.calendarWebhooks = [...BOTH_CALENDAR_WEBHOOKS];
    this.readings = this.startingReadings();
  }

  /**
   * Charges what came due (the platform's scheduler), and sends the webhooks for it. Called before
   * every request and on a short tick, so a moved clock settles what it passed. Nothing while the
   * charges are held.
   */
  settle(): void {
    this.expireHolds();
    if (this.chargesHeld) return;
    const timing = { visibilityDelayMs: this.options.paymentVisibilityDelayMs, settleDelayMs: this.options.chargeSettleDelayMs };
    const events = settleDuePayments(this.store, this.now(), timing, (paymentId) => `${this.payUrl}/charges/${paymentId}/authenticate`);
    for (const event of events) this.notify(event);
  }

  /** Holds that ended free their nights (the platform does it by itself), with the calendar webhooks for them. */
  expireHolds(): void {
    for (const reservation of expireHolds(this.store, this.now())) {
      this.reservationChanged(reservation);
      this.reservationNightsChanged(reservation);
    }
  }

  /** A reservation took or freed its nights: the calendar webhooks for them. */
  reservationNightsChanged(reservation: ReservationRecord): void {
    const lastNight = dayString(dayMs(reservation.checkOut.slice(0, 10)) - 86_400_000);
    this.calendarChanged(reservation.listingId, reservation.checkIn.slice(0, 10), lastNight);
  }

  /**
   * The platform's calendar webhooks for the days from `from` to `to` of a listing: calendar.updated.v2
   * as its published example (docs/upstream-reference/examples/calendar-updated-v2.json, no `event`),
   * and the legacy listing.calendar.updated with the days as they are now, in its example's fields.
   */
  calendarChanged(listingId: string, from: string, to: string): void {
    const listing = this.store.listings.get(listingId);
    if (!listing) return;
    const accountId = this.store.currentProviderOf(listingId)?.accountId ?? SANDBOX_ACCOUNT_ID;
    if (this.calendarWebhooks.includes('calendar.updated.v2')) {
      this.webhooks.send(
        'calendar.updated.v2',
        { listingId, accountId, currency: listing.prices.currency, dateRange: { start: from, end: to } },
        { eventField: 'none' },
      );
    }
    if (this.calendarWebhooks.includes('listing.calendar.updated')) {
      const days = calendarDays(this.store, listing, from, to, this.now());
      this.webhooks.send('listing.calendar.updated', {
        listing: { accountId },
        calendar: days.map(({ date, currency, price, minNights, status, cta, ctd }) => ({
          date,
          listingId,
          currency,
          price,
          minNights,
          status,
          cta,
          ctd,
        })),
      });
    }
  }

  /**
   * A reservation was made: `reservation.created.v2` (it replaces `reservation.new`) and its folio's
   * `guest-folio.created`. Neither payload is published (docs/upstream.md, "Webhooks of today"): the
   * readings choose where the v2 event names itself, the folio's id is at the top (inferred).
   */
  reservationCreated(reservation: ReservationRecord): void {
    this.sendReservationEvent('reservation.created.v2', reservation);
    this.folioChanged('guest-folio.created', reservation);
  }

  /**
   * Anything about a reservation changed (its status, a payment added, settled or refunded, a card
   * attached, an item added): `reservation.updated.v2`, and `guest-folio.updated` when its items or
   * money changed (`folio`).
   */
  reservationChanged(reservation: ReservationRecord, { folio = false }: { folio?: boolean } = {}): void {
    this.sendReservationEvent('reservation.updated.v2', reservation);
    if (folio) this.folioChanged('guest-folio.updated', reservation);
  }

  /**
   * The lean v2 payload: key stay details only. Its field names are not published; under each reading
   * the shape a public handler was seen with: `event` beside `data.reservation.id`, or `eventType`
   * beside `data.reservationId`.
   */
  private sendReservationEvent(type: 'reservation.created.v2' | 'reservation.updated.v2', reservation: ReservationRecord): void {
    const details = { status: reservation.status, confirmationCode: reservation.confirmationCode };
    const eventField = this.readings.reservationWebhookEventField;
    const data =
      eventField === 'event' ? { reservation: { id: reservation._id, ...details } } : { reservationId: reservation._id, ...details };
    this.webhooks.send(type, { publishedAt: new Date(this.now()).toISOString(), data }, { eventField });
  }

  /** A folio event: the overview's top-level fields the published examples name, the reservation's id always. */
  private folioChanged(type: 'guest-folio.created' | 'guest-folio.updated', reservation: ReservationRecord): void {
    const { subTotalPrice, totalTaxes } = folioTotals(reservation);
    this.webhooks.send(type, {
      reservationId: reservation._id,
      currency: reservation.currency,
      hostPayout: roundMoney(subTotalPrice + totalTaxes),
      totalTaxes,
    });
  }

  /**
   * What a settled charge sends: the payments event when it is one known to fire (a payment that
   * waits for authentication sends none), then the reservation's own, and its folio's when money came in.
   */
  notify({ type, reservation, payment }: ChargeEvent): void {
    if (PAYMENT_EVENTS_SENT.includes(type)) {
      this.webhooks.send(type, {
        payment: {
          accountId: this.store.currentProviderOf(reservation.listingId)?.accountId,
          reservationId: reservation._id,
          paymentId: payment._id,
          amount: payment.amount,
          currency: payment.currency,
          paymentMethodId: payment.paymentMethodId,
          ...(payment.paidAt === undefined ? {} : { paidAt: new Date(payment.paidAt).toISOString() }),
        },
      });
    }
    this.reservationChanged(reservation, { folio: type === 'payments.received' });
  }

  /** Tells whoever waits on this route that the platform carried one of its requests out. */
  acted(request: ActedRequest): void {
    for (const waiter of this.actedWaiters) {
      if (waiter.route !== request.route) continue;
      waiter.seen.push(request);
      if (waiter.seen.length >= waiter.times) waiter.resolve(waiter.seen);
    }
    this.actedWaiters = this.actedWaiters.filter((waiter) => waiter.seen.length < waiter.times);
  }

  whenActed(route: SandboxRoute, times: number): Promise<ActedRequest[]> {
    if (!Number.isInteger(times) || times < 1) throw new Error('whenActed waits for a whole number of requests, at least 1');
    return new Promise((resolve) => this.actedWaiters.push({ route, times, seen: [], resolve }));
  }

  log(entry: RequestLogEntry): void {
    this.requestLog.push(entry);
    if (this.requestLog.length > REQUEST_LOG_LIMIT) this.requestLog.splice(0, this.requestLog.length - REQUEST_LOG_LIMIT);
  }
}
