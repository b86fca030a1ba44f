/** Calendar dates (YYYY-MM-DD, UTC days) as the booking routes take them. */

const DAY_MS = 24 * 3600 * 1000;

const CALENDAR_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

// Read by arithmetic, not through Date: every calendar read checks and counts its dates, and
// parsing them into Dates was a twentieth of a cached calendar answer's CPU.
export function isCalendarDate(value: string): boolean {
  const parts = CALENDAR_DATE.exec(value);
  if (!parts) return false;
  const [year, month, day] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

/** The UTC day's number since 1970-01-01; as Date reads it (a day past its month's end rolls over, NaN otherwise). */
export function dayNumber(date: string): number {
  const parts = CALENDAR_DATE.exec(date);
  if (!parts) return Math.round(Date.parse(`${date}T00:00:00.000Z`) / DAY_MS);
  const [year, month, day] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  if (month < 1 || month > 12 || day < 1 || day > 31) return NaN;
  return daysFromCivil(year, month, day);
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * ((month + 9) % 12) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

export function dateOf(dayNo: number): string {
  return new Date(dayNo * DAY_MS).toISOString().slice(0, 10);
}

export function today(now: number): string {
  return new Date(now).toISOString().slice(0, 10);
}

/** YYYY-MM of every month from `from` to `to` included. */
export function monthsBetween(from: string, to: string): string[] {
  const months: string[] = [];
  let year = Number(from.slice(0, 4));
  let month = Number(from.slice(5, 7));
  const last = to.slice(0, 7);
  for (;;) {
    const text = `${year}-${String(month).padStart(2, '0')}`;
    months.push(text);
    if (text >= last) return months;
    month += 1;
    if (month > 12) {
      month = 1;
      year += 1;
    }
  }
}

export function monthBounds(month: string): { first: string; last: string } {
  const [year, monthNo] = month.split('-').map(Number);
  const last = new Date(Date.UTC(year, monthNo, 0)).toISOString().slice(0, 10);
  return { first: `${month}-01`, last };
}
