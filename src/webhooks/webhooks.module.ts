import { Global, Module } from '@nestjs/common';
import { PaymentsModule } from '../payments/payments.module';
import { GuestyWebhooksController } from './guesty-webhooks.controller';
import { GuestyWebhooks } from './guesty-webhooks.service';
import { ReservationEvents } from './reservation-events';

/**
 * The platform's webhooks (POST /webhooks/guesty). ReservationEvents is exported for the rooms
 * that cache what reservation and calendar events change (the booking calendar subscribes to it).
 */
@Global()
@Module({
  imports: [PaymentsModule],
  controllers: [GuestyWebhooksController],
  providers: [GuestyWebhooks, ReservationEvents],
  exports: [ReservationEvents],
})
export class WebhooksModule {}
