import { Injectable } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { ConsumerMark, PRODUCT_EVENT_CONSUMER } from './on-product-event';
import { PRODUCT_EVENT_CONSUMERS, ProductEventName, ProductEvents } from './product-events';

/** A consumer as wired in the app: its name for an event, and the class and method that hold it. */
interface WiredConsumer extends ConsumerMark {
  at: string;
}

/** Publishes product events to their consumers (@OnProductEvent), on @nestjs/event-emitter. */
@Injectable()
export class ProductEventBus {
  constructor(
    private readonly emitter: EventEmitter2,
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
  ) {}

  /** Resolves once every consumer has handled the event. */
  async publish<K extends ProductEventName>(name: K, payload: ProductEvents[K]): Promise<void> {
    await this.emitter.emitAsync(name, payload);
  }

  /**
   * Throws, naming them, when a consumer the product needs (PRODUCT_EVENT_CONSUMERS) is not wired:
   * each is found by the name it gives itself on its method, in the app's providers (called once the
   * app is initialised). Another consumer of the same event does not stand in for it.
   */
  assertConsumed(): void {
    const wired = this.wiredConsumers();
    const unheard = Object.entries(PRODUCT_EVENT_CONSUMERS).flatMap(([event, needed]: [string, readonly string[]]) => {
      const present = wired.filter((consumer) => consumer.event === event);
      const missing = needed.filter((name) => !present.some((consumer) => consumer.consumer === name));
      if (missing.length === 0) return [];
      const others = present.map((consumer) => `${consumer.consumer} at ${consumer.at}`);
      return [`${event} (${missing.join(', ')}; wired: ${others.length > 0 ? others.join(', ') : 'none'})`];
    });
    if (unheard.length > 0)
      throw new Error(`no room consumes the product event(s) ${unheard.join(', ')}: a consumer's module is not wired into the app`);
  }

  private wiredConsumers(): WiredConsumer[] {
    return this.discovery.getProviders().flatMap(({ instance }) => {
      const prototype = instance ? (Object.getPrototypeOf(instance) as object | null) : null;
      if (!prototype) return [];
      return this.scanner.getAllMethodNames(prototype).flatMap((method) => {
        const marks = Reflect.getMetadata(PRODUCT_EVENT_CONSUMER, (prototype as Record<string, object>)[method]) as
          ConsumerMark[] | undefined;
        return (marks ?? []).map((mark) => ({ ...mark, at: `${prototype.constructor.name}.${method}` }));
      });
    });
  }
}
