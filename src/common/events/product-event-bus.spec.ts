import { Injectable } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { SILENT_LOGGER } from '../../../test/utils/unit-kit';
import { OnProductEvent } from './on-product-event';
import { ProductEventBus } from './product-event-bus';
import { ProductEventConsumer, ProductEvents } from './product-events';
import { ProductEventsModule } from './product-events.module';

type ReservationChanged = ProductEvents['reservation.changed'];

@Injectable()
class CalendarLike {
  readonly heard: ReservationChanged[] = [];
  failing = false;

  @OnProductEvent('reservation.changed', 'booking calendar')
  async onReservationChanged(event: ReservationChanged): Promise<void> {
    await Promise.resolve();
    if (this.failing) throw new Error('the cache is down');
    this.heard.push(event);
  }
}

@Injectable()
class KnownReservationsLike {
  @OnProductEvent('reservation.changed', 'known reservations')
  onReservationChanged(): void {}
}

@Injectable()
class PaymentStatusLike {
  @OnProductEvent('reservation.changed', 'payment status')
  onReservationChanged(): void {}

  @OnProductEvent('payments.changed', 'payment status')
  onPaymentsChanged(): void {}

  @OnProductEvent('balance.changed', 'payment status')
  onBalanceChanged(): Promise<void> {
    return Promise.resolve();
  }
}

@Injectable()
class BookingConfirmationLike {
  @OnProductEvent('card.attached', 'booking confirmation')
  onCardAttached(): void {}
}

/**
 * A consumer of a card attached under a name the map does not list for it (only a cast gets it past
 * the type): it consumes the event, but confirms no booking.
 */
@Injectable()
class StrayCardConsumer {
  @OnProductEvent('card.attached', 'payment status' as ProductEventConsumer<'card.attached'>)
  onCardAttached(): void {}
}

@Injectable()
class SessionsLike {
  @OnProductEvent('attach.settled', 'card payments')
  onAttachSettled(): void {}
}

async function started(
  consumers: (
    | typeof CalendarLike
    | typeof KnownReservationsLike
    | typeof PaymentStatusLike
    | typeof BookingConfirmationLike
    | typeof StrayCardConsumer
    | typeof SessionsLike
  )[],
) {
  const module = await Test.createTestingModule({ imports: [ProductEventsModule], providers: consumers })
    .setLogger(SILENT_LOGGER)
    .compile();
  await module.init();
  return module;
}

describe('ProductEventBus', () => {
  it('hands an event to its consumer and resolves once the consumer is done', async () => {
    const module = await started([CalendarLike, KnownReservationsLike, PaymentStatusLike, BookingConfirmationLike, SessionsLike]);
    await module
      .get(ProductEventBus)
      .publish('reservation.changed', { type: 'reservation.new', reservationId: 'res-1', listingId: 'lst-1' });
    expect(module.get(CalendarLike).heard).toEqual([{ type: 'reservation.new', reservationId: 'res-1', listingId: 'lst-1' }]);
    expect(() => module.get(ProductEventBus).assertConsumed()).not.toThrow();
  });

  it('refuses to start when an event the product needs has no consumer, naming it', async () => {
    const module = await started([CalendarLike, KnownReservationsLike]);
    expect(() => module.get(ProductEventBus).assertConsumed()).toThrow(
      'no room consumes the product event(s) reservation.changed (payment status; wired: booking calendar at CalendarLike.onReservationChanged, known reservations at KnownReservationsLike.onReservationChanged), card.attached (booking confirmation; wired: none), payments.changed (payment status; wired: none), balance.changed (payment status; wired: none), attach.settled (card payments; wired: none):',
    );
    const bare = await started([]);
    expect(() => bare.get(ProductEventBus).assertConsumed()).toThrow(
      'no room consumes the product event(s) reservation.changed (booking calendar, known reservations, payment status; wired: none), card.attached (booking confirmation; wired: none), payments.changed (payment status; wired: none), balance.changed (payment status; wired: none), attach.settled (card payments; wired: none):',
    );
  });

  it('refuses to start when one consumer is missing, though every other is wired, naming only it', async () => {
    // Nothing would confirm a booked reservation paid with a card.
    const module = await started([CalendarLike, KnownReservationsLike, PaymentStatusLike, SessionsLike]);
    expect(() => module.get(ProductEventBus).assertConsumed()).toThrow(
      'no room consumes the product event(s) card.attached (booking confirmation; wired: none):',
    );
  });

  it('refuses to start when another consumer of the event stands where a needed one is missing', async () => {
    // A consumer of a card attached, as many as the product needs, but it confirms no booking.
    const module = await started([CalendarLike, KnownReservationsLike, PaymentStatusLike, StrayCardConsumer, SessionsLike]);
    expect(() => module.get(ProductEventBus).assertConsumed()).toThrow(
      'no room consumes the product event(s) card.attached (booking confirmation; wired: payment status at StrayCardConsumer.onCardAttached):',
    );
  });

  it('never fails the publisher when a consumer fails', async () => {
    const module = await started([CalendarLike]);
    module.get(CalendarLike).failing = true;
    await expect(
      module.get(ProductEventBus).publish('reservation.changed', { type: 'calendar.updated', listingId: 'lst-2' }),
    ).resolves.toBeUndefined();
  });
});
