import { holdEndedAs, PlatformReservation, ReservationStatusRead } from '../upstream/platform-results';

/** How a booking's hold ended on the platform. */
export type HoldEnd = 'expired' | 'canceled';

/**
 * How the platform holds a booking's reservation now (docs/product-spec.md §3.1): `held`, or how the
 * hold ended. Its status decides (read loudly: GuestyClient.statusRelied), and a `reserved` hold whose
 * end (the create answer's `reservedExpiresAt`, kept with the booking, else the read's `reservedAt` +
 * `reservedUntil`) has passed ended even if the status lags it.
 */
export function holdOnPlatform(
  reservation: Pick<PlatformReservation, 'holdEndsAt'> & { status: ReservationStatusRead },
  holdExpiresAt: string | undefined,
  now: number,
): 'held' | HoldEnd {
  const { status } = reservation;
  const ended = holdEndedAs(status);
  if (ended) return ended;
  // The create's answer is the platform's word on the hold's end; a read's reservedAt + reservedUntil only stands in without it.
  const end = holdExpiresAt ?? reservation.holdEndsAt;
  if (status === 'reserved' && end !== undefined && Date.parse(end) <= now) return 'expired';
  return 'held';
}
