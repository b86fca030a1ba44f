import { Module } from '@nestjs/common';
import { ReservationsModule } from '../reservations/reservations.module';
import { GuestyWebhooksController } from './guesty-webhooks.controller';
import { GuestyWebhooks } from './guesty-webhooks.service';

/**
 * The platform's webhooks (POST /webhooks/guesty). Reservation and calendar events reach the rooms
 * that cache what they change as the product event `reservation.changed` (the booking calendar).
 */
@Module({
  imports: [ReservationsModule],
  controllers: [GuestyWebhooksController],
  providers: [GuestyWebhooks],
})
export class WebhooksModule {}
