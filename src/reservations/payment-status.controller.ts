import { Controller, Get, Param, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { SessionState } from '../sessions/session-state';
import { ClientIpReadLimitGuard } from '../common/abuse/client-ip-limit.guard';
import { ApiProblems, UPSTREAM_PROBLEMS } from '../common/http/api-problems.decorator';
import { PaymentDiagnosisResponse } from './dto/payment-diagnosis.view';
import { PaymentDiagnosis } from './payment-diagnosis';
import { PaymentStatusPolls } from './payment-status-polls';

@ApiTags('checkout')
@Controller('checkout/sessions')
export class PaymentStatusController {
  constructor(
    private readonly sessions: SessionState,
    private readonly polls: PaymentStatusPolls,
  ) {}

  // Counted per IP (CHECKOUT_IP_READ_LIMIT): a check may cost upstream reads of the account's shared budget.
  @Get(':id/payment-status')
  @UseGuards(ClientIpReadLimitGuard)
  @ApiOperation({
    summary: "The money.payments diagnostics of the session's reservation",
    description:
      'Worded for the guest. The reservation is read at most once per PAYMENT_STATUS_REFRESH_SECONDS (all replicas, however many browsers poll); ' +
      'polling more often answers the same result. Right after a card is attached the payment may take a moment to show; the first check re-reads briefly (up to ~3 s).',
  })
  @ApiOkResponse({ type: PaymentDiagnosisResponse })
  @ApiProblems('session_not_found', 'rate_limited', ...UPSTREAM_PROBLEMS)
  async status(@Param('id') id: string): Promise<PaymentDiagnosis> {
    const session = await this.sessions.require(id);
    return this.polls.status(session.reservationId, {
      tokenizedUnder: session.tokenizedUnder,
      paymentMethodId: session.paymentMethod?.id,
      last4: session.paymentMethod?.last4,
      listingId: session.listingId,
    });
  }
}
