import { Controller, Get, Param, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { AdminKeyGuard } from '../common/admin/admin-key.guard';
import { ADMIN_PROBLEMS, ApiProblems, UPSTREAM_PROBLEMS } from '../common/http/api-problems.decorator';
import { PaymentDiagnosisResponse } from './dto/payment-diagnosis.view';
import { PaymentDiagnosis } from './payment-diagnosis';
import { PaymentDiagnosticsService } from './payment-diagnostics.service';

@ApiTags('admin')
@ApiBearerAuth('admin')
@Controller('admin/reservations')
@UseGuards(AdminKeyGuard)
export class PaymentDiagnosticsController {
  constructor(private readonly diagnostics: PaymentDiagnosticsService) {}

  @Get(':reservationId/payment-diagnostics')
  @ApiParam({ name: 'reservationId', example: 'res-failed' })
  @ApiOperation({
    summary: 'The money.payments diagnostics of any reservation (ADMIN_API_KEY as bearer)',
    description: 'Paid, provider mismatch, processor error, attached and waiting, or never attached; with a message saying what to do.',
  })
  @ApiOkResponse({ type: PaymentDiagnosisResponse })
  @ApiProblems(...ADMIN_PROBLEMS, 'reservation_not_found', ...UPSTREAM_PROBLEMS)
  diagnose(@Param('reservationId') reservationId: string): Promise<PaymentDiagnosis> {
    // Operator reads yield the shared upstream budget to guests' checkouts.
    return this.diagnostics.forReservation(reservationId, {}, 'background');
  }
}
