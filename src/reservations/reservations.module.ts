import { Module } from '@nestjs/common';
import { AbuseModule } from '../common/abuse/abuse.module';
import { SessionsModule } from '../sessions/sessions.module';
import { UpstreamModule } from '../upstream/upstream.module';
import { PaymentDiagnosticsController } from './payment-diagnostics.controller';
import { PaymentDiagnosticsService } from './payment-diagnostics.service';
import { PaymentStatusController } from './payment-status.controller';
import { PaymentStatusPolls } from './payment-status-polls';
import { SessionCharges } from './session-charges';

/**
 * What the platform says about a reservation's money (money.payments): the payment status the site
 * polls (by session) and the diagnostics for operators (by reservation).
 */
@Module({
  imports: [UpstreamModule, AbuseModule, SessionsModule],
  controllers: [PaymentStatusController, PaymentDiagnosticsController],
  providers: [PaymentDiagnosticsService, PaymentStatusPolls, SessionCharges],
})
export class ReservationsModule {}
