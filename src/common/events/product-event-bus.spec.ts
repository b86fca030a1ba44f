import { Injectable } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { SILENT_LOGGER } from '../../../test/utils/unit-kit';
import { OnProductEvent } from './on-product-event';
import { ProductEventBus } from './product-event-bus';
import { ProductEvents } from './product-events';
import { ProductEventsModule } from './product-events.module';

type ReservationChanged = ProductEvents['reservation.changed'];

@Injectable()
class CalendarLike {
  readonly heard: ReservationChanged[] = [];
  failing = false;

  @OnProductEvent('reservation.changed')
  async onReservationChanged(event: ReservationChanged): Promise<void> {
    await Promise.resolve();
    if (this.failing) throw new Error('the cache is down');
    this.heard.push(event);
  }
}

@Injectable()
class PaymentStatusLike {
  @OnProductEvent('card.attached')
  onCardAttached(): Promise<void> {
    return Promise.resolve();
  }

  @OnProductEvent('payments.changed')
  onPaymentsChanged(): void {}

  @OnProductEvent('balance.changed')
  onBalanceChanged(): Promise<void> {
    return Promise.resolve();
  }
}

@Injectable()
class BookingConfirmationLike {
  @OnProductEvent('card.attached')
  onCardAttached(): void {}
}

@Injectable()
class SessionsLike {
  @OnProductEvent('attach.settled')
  onAttachSettled(): void {}
}

async function started(
  consumers: (typeof CalendarLike | typeof PaymentStatusLike | typeof BookingConfirmationLike | typeof SessionsLike)[],
) {
  const module = await Test.createTestingModule({ imports: [ProductEventsModule], providers: consumers })
    .setLogger(SILENT_LOGGER)
    .compile();
  await module.init();
  return module;
}

describe('ProductEventBus', () => {
  it('hands an event to its consumer and resolves once the consumer is done', async () => {
    const module = await started([CalendarLike, PaymentStatusLike, BookingConfirmationLike, SessionsLike]);
    await module
      .get(ProductEventBus)
      .publish('reservation.changed', { type: 'reservation.new', reservationId: 'res-1', listingId: 'lst-1' });
    expect(module.get(CalendarLike).heard).toEqual([{ type: 'reservation.new', reservationId: 'res-1', listingId: 'lst-1' }]);
    expect(() => module.get(ProductEventBus).assertConsumed()).not.toThrow();
  });

  it('refuses to start when an event the product needs has no consumer, naming it', async () => {
    const module = await started([CalendarLike]);
    expect(() => module.get(ProductEventBus).assertConsumed()).toThrow(
      'no room consumes the product event(s) card.attached (payment status, booking confirmation: 0 wired), payments.changed (payment status: 0 wired), balance.changed (payment status: 0 wired), attach.settled (card payments: 0 wired):',
    );
    const bare = await started([]);
    expect(() => bare.get(ProductEventBus).assertConsumed()).toThrow(
      'no room consumes the product event(s) reservation.changed (booking calendar: 0 wired), card.attached (payment status, booking confirmation: 0 wired), payments.changed (payment status: 0 wired), balance.changed (payment status: 0 wired), attach.settled (card payments: 0 wired):',
    );
  });

  it('refuses to start when one of an event’s consumers is missing, though another consumes it', async () => {
    // The payment status hears a card attached, but nothing would confirm a booked reservation paid with it.
    const module = await started([CalendarLike, PaymentStatusLike, SessionsLike]);
    expect(() => module.get(ProductEventBus).assertConsumed()).toThrow(
      'no room consumes the product event(s) card.attached (payment status, booking confirmation: 1 wired):',
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
