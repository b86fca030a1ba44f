import { OnEvent } from '@nestjs/event-emitter';
import { ProductEventName } from './product-events';

/**
 * Marks a method as a consumer of a product event (its argument: `ProductEvents[name]`). A consumer
 * that throws is logged and never fails the publisher (the event is a hint; the platform would only
 * retry a webhook we failed).
 */
export const OnProductEvent = (name: ProductEventName): MethodDecorator => OnEvent(name, { suppressErrors: true });
