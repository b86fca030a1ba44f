import { jsonAnswer, type SandboxAnswer } from '../http/answer';
import type { RequestContext } from '../http/host-server';
import { expireHolds } from '../state/booking-state';
import { reservationView } from '../state/money';
import { projectFields } from '../state/projection';

/** The reference's 404 answer of the reservation read and of the deprecated invoice-item endpoint. */
export const RESERVATION_NOT_FOUND = 'Reservation Not Found';

type StatusBearer = { status?: unknown; attempts?: { status?: unknown }[]; refunds?: { status?: unknown }[] };

/**
 * The other reading of the reference's free-text payment statuses (`type: string`, no enum): lower
 * case, each payment's and each of its attempts' and refunds'. The legacy read's and the payments list's alike.
 */
export function lowerPaymentStatuses(payments: StatusBearer[]): void {
  const lower = (item: { status?: unknown }) => {
    if (typeof item.status === 'string') item.status = item.status.toLowerCase();
  };
  for (const payment of payments) {
    lower(payment);
    for (const attempt of payment.attempts ?? []) lower(attempt);
    for (const refund of payment.refunds ?? []) lower(refund);
  }
}

/** GET /v1/reservations/:id[?fields=...]: payments appear only once the upstream has caught up. */
export function getReservation(ctx: RequestContext): SandboxAnswer {
  const { store } = ctx.runtime;
  // A hold that ended shows as `expired` (reservations made from quotes, docs/product-spec.md §5).
  expireHolds(store, ctx.now);
  const reservation = store.reservations.get(ctx.params.id);
  // The reference's 404 for this operation is a bare JSON string.
  if (!reservation) return jsonAnswer(404, RESERVATION_NOT_FOUND);
  const view = reservationView(store, reservation, ctx.now);
  if (ctx.runtime.readings.paymentStatusCase === 'lower') {
    lowerPaymentStatuses((view.money as { payments?: StatusBearer[] } | undefined)?.payments ?? []);
  }
  return jsonAnswer(200, projectFields(view, ctx.url.searchParams.get('fields')));
}
