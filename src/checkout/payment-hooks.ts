import { Injectable, Logger } from '@nestjs/common';

/**
 * Where the payments room hears of a card put on a reservation without the checkout depending on
 * it (lint forbids checkout → payments): what payment-status serves for the reservation is stale
 * at once. Registered at start, like BookingHooks.
 */
@Injectable()
export class PaymentHooks {
  private readonly logger = new Logger('PaymentHooks');
  private attachedListener?: (reservationId: string) => Promise<void>;

  register(hooks: { cardAttached: (reservationId: string) => Promise<void> }): void {
    this.attachedListener = hooks.cardAttached;
  }

  /** Awaited by the attach, so the guest's next payment-status poll reads the platform afresh; a failure is only logged. */
  async cardAttached(reservationId: string): Promise<void> {
    await this.attachedListener?.(reservationId).catch((error: unknown) => this.logger.warn({ err: error, reservationId }, 'could not drop the payment status served for a reservation'));
  }
}
