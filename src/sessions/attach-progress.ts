/**
 * Whether a card is on its way to a reservation (an attach sent, or waiting for the sweep after its
 * replica died). Declared here so the checkout asks it without reading the payments room's intents;
 * PaymentsModule provides it, and an app without that room fails at start.
 */
export abstract class AttachProgress {
  /** True while an attach on the reservation is open; false when none is, or the store cannot tell. */
  abstract attachUnderWay(reservationId: string): Promise<boolean>;
}
