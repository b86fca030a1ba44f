import { Module } from '@nestjs/common';
import { AbuseModule } from '../common/abuse/abuse.module';
import { IdempotencyModule } from '../common/idempotency/idempotency.module';
import { UpstreamModule } from '../upstream/upstream.module';
import { SessionsModule } from '../sessions/sessions.module';
import { CheckoutSessionsService } from './checkout-sessions.service';
import { KnownReservations } from './known-reservations';
import { ListingSummariesService } from './listing-summaries.service';
import { ListingsController } from './listings.controller';
import { SessionsController } from './sessions.controller';

@Module({
  imports: [UpstreamModule, IdempotencyModule, AbuseModule, SessionsModule],
  controllers: [SessionsController, ListingsController],
  providers: [CheckoutSessionsService, ListingSummariesService, KnownReservations],
})
export class CheckoutModule {}
