import { OnEvent } from '@nestjs/event-emitter';
import { ProductEventConsumer, ProductEventName } from './product-events';

/** What a method consumes, read at start (ProductEventBus.assertConsumed) to check every needed consumer is wired. */
export const PRODUCT_EVENT_CONSUMER = Symbol('product event consumer');

export interface ConsumerMark {
  event: ProductEventName;
  consumer: string;
}

/**
 * Marks a method as the consumer `consumer` of a product event (its argument: `ProductEvents[name]`).
 * A consumer that throws is logged and never fails the publisher (the event is a hint; the platform
 * would only retry a webhook we failed).
 */
export const OnProductEvent =
  <K extends ProductEventName>(name: K, consumer: ProductEventConsumer<K>): MethodDecorator =>
  (target, key, descriptor) => {
    const method = descriptor.value as object;
    const marks = (Reflect.getMetadata(PRODUCT_EVENT_CONSUMER, method) as ConsumerMark[] | undefined) ?? [];
    Reflect.defineMetadata(PRODUCT_EVENT_CONSUMER, [...marks, { event: name, consumer }], method);
    return OnEvent(name, { suppressErrors: true })(target, key, descriptor);
  };
