import { PlatformReservation } from '../upstream/platform-results';

/** How a booking's hold ended on the platform. */
export type HoldEnd = 'expired' | 'canceled';

/**
 * Reservation statuses in which the platform no longer holds the dates. The reference's enum is
 * `confirmed, reserved, awaiting_payment, inquiry, canceled, closed, declined, expired`
 * (docs/upstream.md); `confirmed`, `reserved` and `awaiting_payment` still hold them.
 */
const ENDED: ReadonlySet<string> = new Set(['canceled', 'closed', 'declined', 'expired']);

/**
 * An inquiry holds no dates (the platform's help centre: an inquiry "doesn't affect the calendar"; a
 * `reserved` hold that runs out no longer blocks them): a booking the platform shows as one has lost its hold.
 */
const HOLDS_NO_DATES: ReadonlySet<string> = new Set(['inquiry']);

/**
 * How the platform holds a booking's reservation now (docs/product-spec.md §3.1): `held`, or how the
 * hold ended. Its status decides, and a `reserved` hold whose end (the create answer's
 * `reservedExpiresAt`, kept with the booking, else the read's `reservedAt` + `reservedUntil`) has passed
 * ended even if the status lags it.
 */
export function holdOnPlatform(reservation: PlatformReservation | null, holdExpiresAt: string | undefined, now: number): 'held' | HoldEnd {
  if (!reservation) return 'canceled';
  const status = reservation.status ?? 'reserved';
  if (ENDED.has(status)) return status === 'expired' ? 'expired' : 'canceled';
  if (HOLDS_NO_DATES.has(status)) return 'expired';
  // The create's answer is the platform's word on the hold's end; a read's reservedAt + reservedUntil only stands in without it.
  const end = holdExpiresAt ?? reservation.holdEndsAt;
  if (status === 'reserved' && end !== undefined && Date.parse(end) <= now) return 'expired';
  return 'held';
}
