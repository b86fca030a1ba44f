import { ConfigService } from '@nestjs/config';
import { Clock } from '../primitives/clock';
import { AppConfig } from '../config/app-config';
import { KeyValueStore } from '../redis/key-value-store';
import { RedisKeys } from '../redis/redis-keys';
import { SharedFetches } from '../redis/shared-fetches';
import { GuestyClient } from '../upstream/guesty-client';
import { UpstreamError } from '../upstream/upstream-error';
import { CalendarService } from './calendar.service';
import { QuotesService } from './quotes.service';

const NOW = Date.parse('2031-07-01T12:00:00Z');

/** A quotes service whose platform refuses every quote with `platformSaid`, over a calendar giving `minNights`. */
function refusing(platformSaid: string, minNights: number | null) {
  const refusal = new UpstreamError('stay_not_allowed', 'This stay does not meet the property’s terms.', {
    operation: 'createQuote',
    maybeSent: true,
    upstreamStatus: 400,
    upstreamMessage: platformSaid,
  });
  const guesty = { createQuote: () => Promise.reject(refusal) } as unknown as GuestyClient;
  const calendar = { minNightsFrom: jest.fn(() => Promise.resolve(minNights)) };
  const config = { get: () => ({ source: 'web', quoteReuseSeconds: 0 }) } as unknown as ConfigService<AppConfig, true>;
  const clock = { now: () => NOW } as Clock;
  const quotes = new QuotesService(
    guesty,
    {} as KeyValueStore,
    new RedisKeys('t:'),
    clock,
    config,
    {} as SharedFetches,
    calendar as unknown as CalendarService,
  );
  const ask = (checkIn: string, checkOut: string) =>
    quotes.create({ listingId: 'lst-seaside', checkIn, checkOut, guestsCount: 2 }).catch((error: unknown) => error);
  return { ask, calendar, refusal };
}

describe('a quote refused for its number of nights names the minimum', () => {
  it('answers stay_too_short with the arrival day’s minNights when the stay falls short of it', async () => {
    const { ask, calendar } = refusing('Reservation terms violated: the minimum stay is 3 nights', 3);
    const answer = await ask('2031-08-01', '2031-08-02');
    expect(answer).toMatchObject({ code: 'stay_not_allowed', status: 422, limit: { reason: 'stay_too_short', minNights: 3 } });
    expect((answer as Error).message).toMatch(/at least 3 nights/);
    expect(calendar.minNightsFrom).toHaveBeenCalledWith('lst-seaside', '2031-08-01');
  });

  it('leaves the refusal as it came when the stay meets the calendar’s minimum (the platform’s limit is unknown)', async () => {
    const { ask, refusal } = refusing('Reservation terms violated: too many nights', 2);
    expect(await ask('2031-08-01', '2031-08-21')).toBe(refusal);
  });

  it('leaves it as it came when the calendar cannot say, or the platform named guests or arrival', async () => {
    for (const [said, minNights] of [
      ['minimum stay is 3 nights', null],
      ['the listing accommodates at most 4 guests, 3 nights', 5],
      ['check-in is closed on that arrival date', 5],
    ] as const) {
      const { ask, refusal, calendar } = refusing(said, minNights);
      expect(await ask('2031-08-01', '2031-08-02')).toBe(refusal);
      if (minNights !== null) expect(calendar.minNightsFrom).not.toHaveBeenCalled();
    }
  });
});
