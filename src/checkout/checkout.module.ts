import { Module } from '@nestjs/common';
import { AbuseModule } from '../common/abuse/abuse.module';
import { IdempotencyModule } from '../common/idempotency/idempotency.module';
import { UpstreamModule } from '../upstream/upstream.module';
import { InvoicesModule } from '../invoices/invoices.module';
import { JournalModule } from '../journal/journal.module';
import { SessionsModule } from '../sessions/sessions.module';
import { CheckoutSessions } from './checkout-sessions.service';
import { ExtrasCatalogueController } from './extras-catalogue.controller';
import { ExtrasController } from './extras.controller';
import { Extras } from './extras.service';
import { ListingSummaries } from './listing-summaries.service';
import { ListingsController } from './listings.controller';
import { SessionsController } from './sessions.controller';

@Module({
  imports: [UpstreamModule, IdempotencyModule, AbuseModule, InvoicesModule, JournalModule, SessionsModule],
  controllers: [SessionsController, ListingsController, ExtrasController, ExtrasCatalogueController],
  providers: [CheckoutSessions, ListingSummaries, Extras],
})
export class CheckoutModule {}
