import { CalendarDay } from '../upstream/platform-results';

/**
 * Whether a calendar day can be booked, by the platform's own rule (its calendar reference: "Multi-unit
 * calendar availability is determined by unit allotment, not its `status` field"): while the day has
 * an allotment, it is available as long as that is above zero; otherwise by `status`.
 */
export function isDayAvailable(day: Pick<CalendarDay, 'status' | 'allotment'>): boolean {
  return typeof day.allotment === 'number' ? day.allotment > 0 : day.status === 'available';
}
