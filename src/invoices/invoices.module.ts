import { Module } from '@nestjs/common';
import { AbuseModule } from '../common/abuse/abuse.module';
import { IdempotencyModule } from '../common/idempotency/idempotency.module';
import { UpstreamModule } from '../upstream/upstream.module';
import { JournalModule } from '../journal/journal.module';
import { SessionsModule } from '../sessions/sessions.module';
import { AdminInvoiceItemsController } from './admin-invoice-items.controller';
import { ExtrasCatalogueController } from './extras-catalogue.controller';
import { ExtrasController } from './extras.controller';
import { ExtrasService } from './extras.service';
import { InvoiceItemsService } from './invoice-items.service';
import { InvoiceItemWrite } from './invoice-item.write-kind';

/**
 * Invoice items on reservations: a checkout session's extras (its guest's own choices, with their public
 * catalogue) and the operator route. Routes keep their paths under /checkout.
 */
@Module({
  imports: [UpstreamModule, IdempotencyModule, AbuseModule, JournalModule, SessionsModule],
  controllers: [ExtrasController, ExtrasCatalogueController, AdminInvoiceItemsController],
  providers: [InvoiceItemsService, ExtrasService, InvoiceItemWrite],
})
export class InvoicesModule {}
