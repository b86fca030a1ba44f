/** Calendar dates (YYYY-MM-DD, UTC days) as the booking routes take them. */

const DAY_MS = 24 * 3600 * 1000;

export function isCalendarDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const ms = Date.parse(`${value}T00:00:00.000Z`);
  return !Number.isNaN(ms) && new Date(ms).toISOString().startsWith(value);
}

export function dayNumber(date: string): number {
  return Math.round(Date.parse(`${date}T00:00:00.000Z`) / DAY_MS);
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
