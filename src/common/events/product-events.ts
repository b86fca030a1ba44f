/**
 * What happens in the product that another room acts on: one map from event name to payload, so a
 * publisher and its consumers agree on both by type (ProductEventBus publishes, @OnProductEvent consumes).
 */
export interface ProductEvents {
  /**
   * A verified platform webhook about a reservation or a listing's calendar. Ids only: a consumer
   * re-reads the platform, never takes the payload's figures as facts. The booking calendar consumes it.
   */
  'reservation.changed': { type: string; reservationId?: string; listingId?: string; dates?: { from: string; to: string } };
  /**
   * A card was put on the reservation (first or replacement, answered or reconciled): what
   * payment-status serves for it is stale at once. Awaited by the attach, so the guest's next poll
   * reads the platform afresh. The payments room consumes it.
   */
  'card.attached': { reservationId: string };
  /**
   * An extra was added to the reservation's invoice: what is due changed, so what payment-status
   * serves for it (perhaps "paid") is stale at once. The payments room consumes it.
   */
  'balance.changed': { reservationId: string };
}

export type ProductEventName = keyof ProductEvents;

/**
 * Events the product needs a consumer for: the app refuses to start without one, so a wiring mistake
 * cannot silently drop, say, the calendar refresh a reservation webhook asks for.
 */
export const CONSUMED_EVENTS: readonly ProductEventName[] = ['reservation.changed', 'card.attached', 'balance.changed'];
