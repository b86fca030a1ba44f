import { journalWorld, quietLogs, unitModule } from '../../test/utils/unit-kit';
import { DomainError } from '../common/errors/domain-error';
import { ProductEventBus } from '../common/events/product-event-bus';
import { ProductEventsModule } from '../common/events/product-events.module';
import { SharedFetches } from '../redis/shared-fetches';
import { SharedReadCache } from '../redis/shared-read-cache';
import { GuestyClient } from '../upstream/guesty-client';
import { CalendarDay } from '../upstream/platform-results';
import { CalendarService, CalendarDayView } from './calendar.service';

beforeAll(quietLogs);

/** The platform's calendar of one listing, one month per read, counting the reads. */
class FakeCalendar {
  reads: string[] = [];
  listings = new Map<string, CalendarDay[]>([
    [
      'lst-1',
      [
        { date: '2031-07-30', currency: 'USD', price: 120, minNights: 2, status: 'available' },
        { date: '2031-07-31', currency: 'USD', price: 125, status: 'booked' },
        { date: '2031-08-01', currency: 'USD', status: 'available', closedToArrival: true },
        { date: '2031-08-02', currency: 'USD', price: 130, minNights: 0, status: 'available', closedToDeparture: true },
      ],
    ],
  ]);

  asClient(): GuestyClient {
    const client: Partial<GuestyClient> = {
      getCalendar: (listingId, from, to) => {
        this.reads.push(`${listingId} ${from}..${to}`);
        const days = this.listings.get(listingId);
        return Promise.resolve(days ? days.filter((day) => day.date >= from && day.date <= to) : null);
      },
    };
    return client as GuestyClient;
  }
}

/** The answer a site reads, as the route sends it (JSON text joined from the cached months). */
async function daysOf(calendar: CalendarService, listingId: string, from: string, to: string) {
  return JSON.parse((await calendar.daysText(listingId, from, to)).text) as {
    listingId: string;
    currency: string | null;
    days: CalendarDayView[];
  };
}

async function setUp() {
  const world = journalWorld();
  const platform = new FakeCalendar();
  const module = await unitModule(
    world,
    [CalendarService, SharedReadCache, SharedFetches],
    [[GuestyClient, platform.asClient()]],
    [ProductEventsModule],
  );
  return { world, platform, calendar: module.get(CalendarService), events: module.get(ProductEventBus) };
}

describe('CalendarCache', () => {
  it('answers the asked days across months, each in the words of the site', async () => {
    const { calendar, platform } = await setUp();
    const view = await daysOf(calendar, 'lst-1', '2031-07-31', '2031-08-02');
    expect(view).toEqual({
      listingId: 'lst-1',
      currency: 'USD',
      days: [
        { date: '2031-07-31', available: false, price: 125, minNights: 1, checkInAllowed: false, checkOutAllowed: true },
        { date: '2031-08-01', available: true, price: null, minNights: 1, checkInAllowed: false, checkOutAllowed: true },
        { date: '2031-08-02', available: true, price: 130, minNights: 1, checkInAllowed: true, checkOutAllowed: false },
      ],
    });
    expect(platform.reads.sort()).toEqual(['lst-1 2031-07-01..2031-07-31', 'lst-1 2031-08-01..2031-08-31']);
  });

  it('reads a month from the platform once while it is cached', async () => {
    const { calendar, platform, world } = await setUp();
    await daysOf(calendar, 'lst-1', '2031-07-30', '2031-07-31');
    world.clock.time += 60_000;
    await daysOf(calendar, 'lst-1', '2031-07-01', '2031-07-30');
    expect(platform.reads).toEqual(['lst-1 2031-07-01..2031-07-31']);
  });

  it('refuses an unknown listing as listing_not_found and remembers it for a while', async () => {
    const { calendar, platform } = await setUp();
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const refused = await daysOf(calendar, 'lst-none', '2031-07-01', '2031-07-02').catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(DomainError);
      expect((refused as DomainError).code).toBe('listing_not_found');
    }
    expect(platform.reads).toEqual(['lst-none 2031-07-01..2031-07-31']);
  });

  it("reads the platform again once a reservation webhook names the listing (the booking's dates are gone)", async () => {
    const { calendar, platform, events, world } = await setUp();
    world.clock.time = Date.parse('2031-07-15T00:00:00Z');
    await daysOf(calendar, 'lst-1', '2031-07-30', '2031-07-30');
    platform.listings.set('lst-1', [{ date: '2031-07-30', currency: 'USD', price: 120, status: 'booked' }]);
    await events.publish('reservation.changed', { type: 'reservation.new', reservationId: 'res-1', listingId: 'lst-1' });
    const after = await daysOf(calendar, 'lst-1', '2031-07-30', '2031-07-30');
    expect(after.days.map((day) => day.available)).toEqual([false]);
    expect(platform.reads).toHaveLength(2);
  });

  it("marks the service's own booking's nights taken in the cached months, without reading the platform again", async () => {
    const { calendar, platform } = await setUp();
    await daysOf(calendar, 'lst-1', '2031-07-30', '2031-08-02');
    await calendar.nightsTaken('lst-1', '2031-07-31', '2031-08-02');
    const after = await daysOf(calendar, 'lst-1', '2031-07-30', '2031-08-02');
    expect(after.days.map((day) => [day.date, day.available, day.checkInAllowed])).toEqual([
      ['2031-07-30', true, true],
      ['2031-07-31', false, false],
      ['2031-08-01', false, false],
      ['2031-08-02', true, true],
    ]);
    expect(platform.reads).toHaveLength(2);
  });

  it('answers a range read again from the same month copies with the text and ETag made for it, and a new one once they change', async () => {
    const { calendar } = await setUp();
    const first = await calendar.daysText('lst-1', '2031-07-30', '2031-08-02');
    expect(first.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    // Nothing joined or hashed again: the same answer, so a 304 is decided from the ETag kept beside it.
    expect(await calendar.daysText('lst-1', '2031-07-30', '2031-08-02')).toBe(first);
    await calendar.nightsTaken('lst-1', '2031-07-31', '2031-08-02');
    const after = await calendar.daysText('lst-1', '2031-07-30', '2031-08-02');
    expect(after.etag).not.toBe(first.etag);
    expect(after.text).not.toBe(first.text);
  });

  it('leaves other listings cached when a webhook names one', async () => {
    const { calendar, platform, events } = await setUp();
    await daysOf(calendar, 'lst-1', '2031-07-30', '2031-07-30');
    await events.publish('reservation.changed', { type: 'reservation.updated', reservationId: 'res-2', listingId: 'lst-other' });
    await events.publish('reservation.changed', { type: 'calendar.updated' });
    await daysOf(calendar, 'lst-1', '2031-07-30', '2031-07-30');
    expect(platform.reads).toHaveLength(1);
  });
});
