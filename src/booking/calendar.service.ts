import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { Clock } from '../primitives/clock';
import { DomainError } from '../common/errors/domain-error';
import { OnProductEvent } from '../common/events/on-product-event';
import { ProductEvents } from '../common/events/product-events';
import { AppConfig } from '../config/app-config';
import { PublicCaching, PublicText, strongEtag } from '../common/http/public-answer';
import { SharedReadCache } from '../redis/shared-read-cache';
import { GuestyClient } from '../upstream/guesty-client';
import { CalendarDay } from '../upstream/platform-results';
import { isDayAvailable } from './day-availability';
import { dayNumber, monthBounds, monthsBetween, today } from './stay-dates';
import { setBounded } from '../primitives/bounded-map';

export interface CalendarDayView {
  date: string;
  available: boolean;
  price: number | null;
  minNights: number;
  checkInAllowed: boolean;
  checkOutAllowed: boolean;
}

interface CalendarMonth {
  currency: string | null;
  days: CalendarDayView[];
  /** A multi-unit listing's units left per date (kept server-side): one booking takes one of them. */
  unitsLeft?: Record<string, number>;
}

/**
 * A replica answers from its own copy this long: a busy site's calendar reads then skip Redis, and a
 * platform calendar webhook (which drops the months in Redis) shows on every replica within a second.
 */
const LOCAL_COPY_MS = 1_000;
/** An unknown listing is remembered for a minute (docs/product-spec.md §7). */
const MISS_MS = 60_000;
/** How many months ahead a listing-wide refresh (a webhook without dates) drops. */
const REFRESH_MONTHS = 25;
const DAY_MS = 86_400_000;
/** Answers kept by listing and range (a 31-day answer is about 3.5 kB of text). */
const ANSWERS = 256;

function dayView(day: CalendarDay): CalendarDayView {
  const available = isDayAvailable(day);
  return {
    date: day.date,
    available,
    price: typeof day.price === 'number' ? day.price : null,
    minNights: typeof day.minNights === 'number' && day.minNights > 0 ? day.minNights : 1,
    checkInAllowed: available && day.closedToArrival !== true,
    checkOutAllowed: day.closedToDeparture !== true,
  };
}

/**
 * A listing's calendar (docs/product-spec.md §3.1), cached by month in Redis and briefly on each
 * replica, read upstream at the anonymous share. Webhooks drop the months they touch
 * (`invalidate`); the service's own bookings mark their nights taken in the cached months instead
 * (`nightsTaken`), so a booking does not turn the next visitor's read into a miss.
 */
@Injectable()
export class CalendarService {
  private readonly logger = new Logger('CalendarCache');
  private readonly ttlMs: number;
  /** Each month copy's days as JSON text: an answer joins text instead of serialising objects. */
  private readonly dayTexts = new WeakMap<CalendarMonth, string[]>();
  /**
   * Answers by listing and range, with the month copies and the day they were made from: while those
   * are the same, the same answer (text and ETag) is served, not joined and hashed again, and a 304
   * is decided from its ETag. Bounded: the oldest goes first.
   */
  private readonly answers = new Map<string, { months: CalendarMonth[]; now: string; answer: PublicText }>();
  private day = { from: 0, text: '' };
  /** A browser or CDN keeps an answer as long as a replica keeps its own copy, and may serve it stale while the cache lives. */
  readonly caching: PublicCaching;

  constructor(
    private readonly guesty: GuestyClient,
    private readonly cache: SharedReadCache,
    private readonly clock: Clock,
    config: ConfigService<AppConfig, true>,
  ) {
    const { calendarCacheSeconds } = config.get('booking', { infer: true });
    this.ttlMs = calendarCacheSeconds * 1000;
    this.caching = {
      maxAgeSeconds: Math.min(LOCAL_COPY_MS / 1000, calendarCacheSeconds),
      staleWhileRevalidateSeconds: calendarCacheSeconds,
    };
  }

  /** The platform's `reservation.*` and calendar webhooks that name a listing drop its cached months. */
  @OnProductEvent('reservation.changed', 'booking calendar')
  async onReservationChanged(event: ProductEvents['reservation.changed']): Promise<void> {
    if (!event.listingId) return;
    await this.invalidate(event.listingId, event.dates);
    this.logger.debug({ listingId: event.listingId, type: event.type }, 'calendar refreshed by a webhook');
  }

  /**
   * The days of `from`..`to` as the route's JSON text with its ETag, kept per range while its month
   * copies and the day stay the same; at once, without a promise, when this replica holds every
   * month. A `from` before yesterday is refused (400); yesterday passes (still today behind UTC),
   * its days unavailable.
   */
  daysText(listingId: string, from: string, to: string): PublicText | Promise<PublicText> {
    const now = this.today();
    if (dayNumber(from) < dayNumber(now) - 1)
      throw DomainError.validation([{ field: 'from', message: 'from must not be more than a day in the past' }]);
    const months = monthsBetween(from, to);
    const copies = months.map((month) => this.cache.heldHere<CalendarMonth>('calendar', `${listingId}:${month}`));
    if (copies.every((copy) => copy !== undefined)) {
      const held = copies.map((copy) => copy.value);
      return this.answerOf(listingId, held, from, to, now);
    }
    return Promise.all(
      months.map((month, index) => {
        const copy = copies[index];
        return copy ? Promise.resolve(copy.value) : this.cachedMonth(listingId, month);
      }),
    ).then((loaded) => this.answerOf(listingId, loaded, from, to, now));
  }

  /**
   * The least nights the calendar gives a stay arriving on `date` (the day's `minNights`), read
   * through the same cache as the route; null when the month cannot be read or has no such day.
   */
  async minNightsFrom(listingId: string, date: string): Promise<number | null> {
    const month = await this.cachedMonth(listingId, date.slice(0, 7));
    return month?.days.find((day) => day.date === date)?.minNights ?? null;
  }

  private cachedMonth(listingId: string, month: string): Promise<CalendarMonth | null> {
    const policy = { ttlMs: this.ttlMs, localTtlMs: LOCAL_COPY_MS, missTtlMs: MISS_MS };
    return this.cache.getOrLoad<CalendarMonth>('calendar', `${listingId}:${month}`, policy, () => this.loadMonth(listingId, month));
  }

  private answerOf(listingId: string, months: (CalendarMonth | null)[], from: string, to: string, now: string): PublicText {
    if (months.some((month) => month === null)) throw new DomainError('listing_not_found', 'No listing has this id.');
    return this.answer(listingId, months as CalendarMonth[], from, to, now);
  }

  /** The answer kept for this range while its month copies and the day are the same; else joined, hashed and kept. */
  private answer(listingId: string, months: CalendarMonth[], from: string, to: string, now: string): PublicText {
    const key = `${listingId} ${from} ${to}`;
    const kept = this.answers.get(key);
    if (kept && kept.now === now && kept.months.every((month, index) => month === months[index])) return kept.answer;
    const text = this.join(listingId, months, from, to, now);
    const answer = { text, etag: strongEtag(text) };
    setBounded(this.answers, key, { months, now, answer }, ANSWERS);
    return answer;
  }

  /** Today's date (UTC), made once a day rather than per read. */
  private today(): string {
    const now = this.clock.now();
    if (now < this.day.from || now >= this.day.from + DAY_MS) {
      const from = now - (now % DAY_MS);
      this.day = { from, text: today(from) };
    }
    return this.day.text;
  }

  private join(listingId: string, months: CalendarMonth[], from: string, to: string, now: string): string {
    const parts: string[] = [];
    let currency: string | null = null;
    for (const month of months) {
      currency ??= month.currency;
      let texts = this.dayTexts.get(month);
      if (!texts) this.dayTexts.set(month, (texts = month.days.map((day) => JSON.stringify(day))));
      for (let index = 0; index < month.days.length; index += 1) {
        const { date } = month.days[index];
        if (date < from || date > to) continue;
        parts.push(
          date < now
            ? JSON.stringify({ ...month.days[index], available: false, checkInAllowed: false, checkOutAllowed: false })
            : texts[index],
        );
      }
    }
    return `{"listingId":${JSON.stringify(listingId)},"currency":${JSON.stringify(currency)},"days":[${parts.join(',')}]}`;
  }

  /**
   * The service booked these nights (checkIn to the night before checkOut): the cached months show
   * them taken at once, so the next visitor's read is still served from the cache. The platform's
   * webhooks refresh the truth.
   */
  async nightsTaken(listingId: string, checkIn: string, checkOut: string): Promise<void> {
    const lastNight = new Date(Date.parse(`${checkOut}T00:00:00Z`) - DAY_MS).toISOString().slice(0, 10);
    if (lastNight < checkIn) return;
    const booked = (cached: CalendarMonth): CalendarMonth => {
      const unitsLeft = { ...cached.unitsLeft };
      const days = cached.days.map((day) => {
        if (day.date < checkIn || day.date > lastNight) return day;
        // A multi-unit listing's night stays available while another unit is left.
        if (unitsLeft[day.date] !== undefined) unitsLeft[day.date] = Math.max(0, unitsLeft[day.date] - 1);
        return unitsLeft[day.date] > 0 ? day : { ...day, available: false, checkInAllowed: false };
      });
      return { ...cached, days, ...(cached.unitsLeft ? { unitsLeft } : {}) };
    };
    await Promise.all(
      monthsBetween(checkIn, lastNight).map((month) => this.cache.update<CalendarMonth>('calendar', `${listingId}:${month}`, booked)),
    );
  }

  /**
   * Drops the listing's cached months (those of `dates`, or every month from this one on), in Redis
   * and on this replica; other replicas' own copies end within a few seconds. The hook for the
   * platform's `reservation.*` and calendar webhooks.
   */
  async invalidate(listingId: string, dates?: { from: string; to: string }): Promise<void> {
    const months = dates ? monthsBetween(dates.from, dates.to) : monthsBetween(today(this.clock.now()), this.monthsAhead(REFRESH_MONTHS));
    await Promise.all(months.map((month) => this.cache.forget('calendar', `${listingId}:${month}`)));
  }

  private monthsAhead(count: number): string {
    const now = new Date(this.clock.now());
    return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + count, 1)).toISOString().slice(0, 10);
  }

  private async loadMonth(listingId: string, month: string): Promise<CalendarMonth | null> {
    const { first, last } = monthBounds(month);
    const days = await this.guesty.getCalendar(listingId, first, last);
    if (!days) return null;
    const dated = days.filter((day) => typeof day.date === 'string');
    const allotted = dated.filter((day) => typeof day.allotment === 'number');
    return {
      currency: days.find((day) => day.currency)?.currency ?? null,
      days: dated.map(dayView),
      ...(allotted.length > 0 ? { unitsLeft: Object.fromEntries(allotted.map((day) => [day.date, day.allotment as number])) } : {}),
    };
  }
}
