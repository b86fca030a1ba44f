import { Module } from '@nestjs/common';
import { GuestyWebhooksController } from './guesty-webhooks.controller';
import { GuestyWebhooksService } from './guesty-webhooks.service';

/**
 * The platform's webhooks (POST /webhooks/guesty). They reach the rooms that cache what they change
 * as product events: `reservation.changed` (the booking calendar, the known reservations, the payment
 * status), `payments.changed` (the payment status).
 */
@Module({
  controllers: [GuestyWebhooksController],
  providers: [GuestyWebhooksService],
})
export class WebhooksModule {}
