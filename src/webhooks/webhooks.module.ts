import { Module } from '@nestjs/common';
import { PaymentsModule } from '../payments/payments.module';
import { GuestyWebhooksController } from './guesty-webhooks.controller';
import { GuestyWebhooks } from './guesty-webhooks.service';

/**
 * The platform's webhooks (POST /webhooks/guesty). Reservation and calendar events reach the rooms
 * that cache what they change as the product event `reservation.changed` (the booking calendar).
 */
@Module({
  imports: [PaymentsModule],
  controllers: [GuestyWebhooksController],
  providers: [GuestyWebhooks],
})
export class WebhooksModule {}
