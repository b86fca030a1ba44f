import { dayNumber, isCalendarDate } from './stay-dates';

const DAY_MS = 24 * 3600 * 1000;
/** What the routes took before the arithmetic: Date's own reading of the text. */
const byDate = {
  isCalendarDate: (value: string) => {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
    const ms = Date.parse(`${value}T00:00:00.000Z`);
    return !Number.isNaN(ms) && new Date(ms).toISOString().startsWith(value);
  },
  dayNumber: (date: string) => Math.round(Date.parse(`${date}T00:00:00.000Z`) / DAY_MS),
};

describe('calendar dates read by arithmetic', () => {
  // The calendar, and the arithmetic's eras, repeat every 400 years: one whole cycle (from
  // 2000-03-01), the era boundary at each of its ends, and day 0 show every kind of year.
  it('agrees with Date on every day from 1970 to 2400, leap days and centuries included', () => {
    const differences: string[] = [];
    for (let day = 0; day <= Date.UTC(2400, 11, 31) / DAY_MS; day += 1) {
      const text = new Date(day * DAY_MS).toISOString().slice(0, 10);
      if (!isCalendarDate(text) || dayNumber(text) !== day) differences.push(text);
    }
    expect(differences).toEqual([]);
  });

  it.each([
    '2027-02-29',
    '2028-02-29',
    '1900-02-29',
    '2000-02-29',
    '2027-02-30',
    '2027-04-31',
    '2027-13-01',
    '2027-00-10',
    '2027-01-00',
    '2027-01-32',
    '0000-01-01',
    '0099-03-01',
    '9999-12-31',
    '2027-1-01',
    '2027-01-01T00:00',
    ' 2027-01-01',
    '',
    'tomorrow',
  ])('reads %j as Date does: valid or not, and the same day number (NaN alike)', (text) => {
    expect(isCalendarDate(text)).toBe(byDate.isCalendarDate(text));
    expect(dayNumber(text)).toBe(byDate.dayNumber(text));
  });
});
