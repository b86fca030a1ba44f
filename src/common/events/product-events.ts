/**
 * What happens in the product that another room acts on: one map from event name to payload, so a
 * publisher and its consumers agree on both by type (ProductEventBus publishes, @OnProductEvent consumes).
 */
export interface ProductEvents {
  /**
   * A verified platform webhook about a reservation or a listing's calendar. Ids only: a consumer
   * re-reads the platform, never takes the payload's figures as facts. The booking calendar consumes
   * it, the known reservations (a reservation the platform announced is a guest's, not a guess) and
   * the payment status (what it served of that reservation is stale).
   */
  'reservation.changed': { type: string; reservationId?: string; listingId?: string; dates?: { from: string; to: string } };
  /**
   * A card was put on the reservation (first or replacement, answered or reconciled). The booking
   * room confirms a reservation it made, without holding up the guest's answer; `booked` says the
   * session carries a booking. `foundOnFile`: a card the store's record lacked, so no follow-up was
   * recorded with it. The attach's journal step drops the cached payment status.
   */
  'card.attached': { reservationId: string; sessionId: string; booked: boolean; foundOnFile?: boolean };
  /**
   * A verified platform webhook says a reservation's money moved (`payments.*`, `guest-folio.*`). The id only: the
   * payment status re-reads the platform behind the webhook's answer, never trusting its figures.
   */
  'payments.changed': { type: string; reservationId: string };
  /**
   * An extra was added to the reservation's invoice: what is due changed, so what payment-status
   * serves for it (perhaps "paid") is stale at once. The payment status consumes it.
   */
  'balance.changed': { reservationId: string };
  /**
   * An attach its own request could not settle was settled by the journal (its sweep, a later
   * request): `attached` when the platform shows the card (already on file), none when it surely did
   * not land. The session it was for follows. The payments room consumes it.
   */
  'attach.settled': {
    reservationId: string;
    /** The session the intent names: by its ref (by its id, for an intent written before the ref). */
    session: { sessionRef?: string; sessionId?: string };
    paymentProviderId: string;
    attached?: { paymentMethodId: string; last4: string; brand?: string };
  };
}

export type ProductEventName = keyof ProductEvents;

/**
 * The consumers each event needs, by the name each gives itself (`@OnProductEvent(event, name)`).
 * The app refuses to start unless all are wired, so a wiring mistake cannot silently drop, say, a
 * webhook's calendar refresh or a booked reservation's confirmation.
 */
export const PRODUCT_EVENT_CONSUMERS = {
  'reservation.changed': ['booking calendar', 'known reservations', 'payment status'],
  'card.attached': ['booking confirmation'],
  'payments.changed': ['payment status'],
  'balance.changed': ['payment status'],
  'attach.settled': ['card payments'],
} as const satisfies { readonly [K in ProductEventName]: readonly string[] };

/** The consumers an event may name: a consumer the map does not list is a type error. */
export type ProductEventConsumer<K extends ProductEventName> = (typeof PRODUCT_EVENT_CONSUMERS)[K][number];
