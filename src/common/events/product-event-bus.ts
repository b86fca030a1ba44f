import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { PRODUCT_EVENT_CONSUMERS, ProductEventName, ProductEvents } from './product-events';

/** Publishes product events to their consumers (@OnProductEvent), on @nestjs/event-emitter. */
@Injectable()
export class ProductEventBus {
  constructor(private readonly emitter: EventEmitter2) {}

  /** Resolves once every consumer has handled the event. */
  async publish<K extends ProductEventName>(name: K, payload: ProductEvents[K]): Promise<void> {
    await this.emitter.emitAsync(name, payload);
  }

  /** Throws, naming them, when events have fewer consumers wired than the product needs (called once the app is initialised). */
  assertConsumed(): void {
    const unheard = Object.entries(PRODUCT_EVENT_CONSUMERS).flatMap(([name, consumers]) => {
      const wired = this.emitter.listenerCount(name);
      return wired < consumers.length ? [`${name} (${consumers.join(', ')}: ${wired} wired)`] : [];
    });
    if (unheard.length > 0)
      throw new Error(`no room consumes the product event(s) ${unheard.join(', ')}: a consumer's module is not wired into the app`);
  }
}
