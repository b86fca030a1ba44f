import { Controller, Get, Param, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CheckoutSessionsStore } from '../checkout/checkout-sessions.store';
import { ClientIpReadLimitGuard } from '../common/abuse/client-ip-limit.guard';
import { ApiProblems } from '../common/http/api-problems.decorator';
import { PaymentDiagnosisResponse } from './dto/payment-diagnosis.view';
import { PaymentDiagnosis } from './payment-diagnosis';
import { PaymentDiagnostics } from './payment-diagnostics.service';

@ApiTags('checkout')
@Controller('checkout/sessions')
export class PaymentStatusController {
  constructor(
    private readonly sessions: CheckoutSessionsStore,
    private readonly diagnostics: PaymentDiagnostics,
  ) {}

  // Counted per IP (CHECKOUT_IP_READ_LIMIT): a check may cost upstream reads of the account's shared budget.
  @Get(':id/payment-status')
  @UseGuards(ClientIpReadLimitGuard)
  @ApiOperation({
    summary: "The money.payments diagnostics of the session's reservation",
    description: 'Right after a card is attached the payment may take a moment to show; the check re-reads briefly (up to ~3 s) before answering.',
  })
  @ApiOkResponse({ type: PaymentDiagnosisResponse })
  @ApiProblems(404, 429, 502, 503)
  async status(@Param('id') id: string): Promise<PaymentDiagnosis> {
    const session = await this.sessions.require(id);
    return this.diagnostics.forReservation(session.reservationId, {
      tokenizedUnder: session.tokenizedUnder,
      paymentMethodId: session.paymentMethod?.id,
      last4: session.paymentMethod?.last4,
      listingId: session.listingId,
    });
  }
}
