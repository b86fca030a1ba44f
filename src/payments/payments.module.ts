import { Global, Module } from '@nestjs/common';
import { AbuseModule } from '../common/abuse/abuse.module';
import { IdempotencyModule } from '../common/idempotency/idempotency.module';
import { JournalModule } from '../journal/journal.module';
import { SessionsModule } from '../sessions/sessions.module';
import { UpstreamModule } from '../upstream/upstream.module';
import { CardPaymentsService } from './card-payments.service';
import { PaymentMethodController } from './payment-method.controller';
import { ThreeDsController } from './three-ds.controller';
import { ThreeDsStates } from './three-ds-states';
import { PaymentMethodWrite } from './payment-method.write-kind';
import { AttachProgress } from '../sessions/attach-progress';

/**
 * A session's card: the tokenization proxy (the card tokenized with the listing's provider, or a
 * token from the upstream form), its attach to the reservation through the write journal, and the
 * 3-D Secure return routes. Its write kind (the attach) lives here and registers with the journal.
 * Global: the checkout asks for `AttachProgress` (declared in sessions/) without importing this room.
 */
@Global()
@Module({
  imports: [UpstreamModule, IdempotencyModule, AbuseModule, JournalModule, SessionsModule],
  controllers: [PaymentMethodController, ThreeDsController],
  providers: [CardPaymentsService, ThreeDsStates, PaymentMethodWrite, { provide: AttachProgress, useExisting: CardPaymentsService }],
  exports: [AttachProgress],
})
export class PaymentsModule {}
