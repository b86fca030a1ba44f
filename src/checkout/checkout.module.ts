import { Module } from '@nestjs/common';
import { AbuseModule } from '../common/abuse/abuse.module';
import { IdempotencyModule } from '../common/idempotency/idempotency.module';
import { GuestyModule } from '../guesty/guesty.module';
import { PaymentsModule } from '../payments/payments.module';
import { CardPayments } from './card-payments.service';
import { CheckoutSessions } from './checkout-sessions.service';
import { CheckoutSessionsStore } from './checkout-sessions.store';
import { ListingSummaries } from './listing-summaries.service';
import { ListingsController } from './listings.controller';
import { SessionsController } from './sessions.controller';
import { ThreeDsController } from './three-ds.controller';
import { ThreeDsStates } from './three-ds-states';

@Module({
  imports: [GuestyModule, PaymentsModule, IdempotencyModule, AbuseModule],
  controllers: [SessionsController, ThreeDsController, ListingsController],
  providers: [CheckoutSessions, CheckoutSessionsStore, CardPayments, ThreeDsStates, ListingSummaries],
  exports: [CheckoutSessionsStore],
})
export class CheckoutModule {}
