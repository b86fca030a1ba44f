import { Module } from '@nestjs/common';
import { CheckoutModule } from '../checkout/checkout.module';
import { AbuseModule } from '../common/abuse/abuse.module';
import { GuestyModule } from '../guesty/guesty.module';
import { PaymentsModule } from '../payments/payments.module';
import { PaymentDiagnosticsController } from './payment-diagnostics.controller';
import { PaymentDiagnostics } from './payment-diagnostics.service';
import { PaymentStatusController } from './payment-status.controller';
import { PaymentStatusPolls } from './payment-status-polls';

/** The money.payments diagnostics, for the checkout (by session) and for operators (by reservation). */
@Module({
  imports: [GuestyModule, PaymentsModule, CheckoutModule, AbuseModule],
  controllers: [PaymentStatusController, PaymentDiagnosticsController],
  providers: [PaymentDiagnostics, PaymentStatusPolls],
})
export class ReservationsModule {}
