import { PlatformReservation } from '../../upstream/platform-results';

/** How a booking's hold ended on the platform. */
export type HoldEnd = 'expired' | 'canceled';

/**
 * Reservation statuses in which the platform no longer holds the dates. The reference's enum is
 * `confirmed, reserved, awaiting_payment, inquiry, canceled, closed, declined, expired`
 * (docs/upstream.md); the first four still hold them.
 */
const ENDED: ReadonlySet<string> = new Set(['canceled', 'closed', 'declined', 'expired']);

/**
 * How the platform holds a booking's reservation now (docs/product-spec.md §3.1): `held`, or how the
 * hold ended. Its status decides, and a `reserved` hold whose end (the platform's `reservedExpiresAt`
 * when its read carries one, else the create's `holdExpiresAt`) has passed ended even if the status lags it.
 */
export function holdOnPlatform(reservation: PlatformReservation | null, holdExpiresAt: string | undefined, now: number): 'held' | HoldEnd {
  if (!reservation) return 'canceled';
  const status = reservation.status ?? 'reserved';
  if (ENDED.has(status)) return status === 'expired' ? 'expired' : 'canceled';
  const end = reservation.holdEndsAt ?? holdExpiresAt;
  if (status === 'reserved' && end !== undefined && Date.parse(end) <= now) return 'expired';
  return 'held';
}

/** The payment methods the platform shows charging the reservation: the attach's snapshot for a booking. */
export function methodsCharging(reservation: PlatformReservation): string[] {
  return [...new Set((reservation.money?.payments ?? []).flatMap((payment) => (payment.methodId ? [payment.methodId] : [])))];
}
