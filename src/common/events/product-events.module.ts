import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { ProductEventBus } from './product-event-bus';

/** The product's events (product-events.ts) for every room: publish through ProductEventBus, consume with @OnProductEvent. */
@Global()
@Module({
  imports: [EventEmitterModule.forRoot(), DiscoveryModule],
  providers: [ProductEventBus],
  exports: [ProductEventBus],
})
export class ProductEventsModule {}
