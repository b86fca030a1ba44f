import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { CONSUMED_EVENTS, ProductEventName, ProductEvents } from './product-events';

/** Publishes product events to their consumers (@OnProductEvent), on @nestjs/event-emitter. */
@Injectable()
export class ProductEventBus {
  constructor(private readonly emitter: EventEmitter2) {}

  /** Resolves once every consumer has handled the event. */
  async publish<K extends ProductEventName>(name: K, payload: ProductEvents[K]): Promise<void> {
    await this.emitter.emitAsync(name, payload);
  }

  /** Throws, naming them, when events the product needs a consumer for have none (called once the app is initialised). */
  assertConsumed(): void {
    const unheard = CONSUMED_EVENTS.filter((name) => this.emitter.listenerCount(name) === 0);
    if (unheard.length > 0)
      throw new Error(`no room consumes the product event(s) ${unheard.join(', ')}: a consumer's module is not wired into the app`);
  }
}
