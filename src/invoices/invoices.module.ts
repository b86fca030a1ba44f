import { Module } from '@nestjs/common';
import { IdempotencyModule } from '../common/idempotency/idempotency.module';
import { UpstreamModule } from '../upstream/upstream.module';
import { JournalModule } from '../journal/journal.module';
import { AdminInvoiceItemsController } from './admin-invoice-items.controller';
import { InvoiceItems } from './invoice-items.service';

/** Invoice items on reservations: the service (checkout extras use it) and the operator route. */
@Module({
  imports: [UpstreamModule, IdempotencyModule, JournalModule],
  controllers: [AdminInvoiceItemsController],
  providers: [InvoiceItems],
  exports: [InvoiceItems],
})
export class InvoicesModule {}
