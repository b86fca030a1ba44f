import { Injectable, Logger } from '@nestjs/common';

/** A verified platform webhook about a reservation or a listing's calendar: a hint to re-read. */
export interface ReservationEvent {
  type: string;
  reservationId?: string;
  listingId?: string;
}

export type ReservationEventListener = (event: ReservationEvent) => Promise<void> | void;

/**
 * The hook other rooms subscribe to for `reservation.*` and calendar webhooks (the booking calendar
 * cache refreshes on them, docs/product-spec.md §4). The event carries ids only: a listener
 * re-reads the platform, never takes the payload's figures as facts. A failing listener is
 * logged and never fails the webhook (the platform would only retry it).
 */
@Injectable()
export class ReservationEvents {
  private readonly logger = new Logger('ReservationEvents');
  private readonly listeners = new Set<ReservationEventListener>();

  subscribe(listener: ReservationEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async publish(event: ReservationEvent): Promise<void> {
    await Promise.all(
      [...this.listeners].map(async (listener) => {
        try {
          await listener(event);
        } catch (error) {
          this.logger.warn({ err: error, type: event.type }, 'a reservation event listener failed');
        }
      }),
    );
  }
}
