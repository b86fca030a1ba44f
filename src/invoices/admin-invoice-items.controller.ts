import { Body, Controller, Headers, Param, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiHeader, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { AdminKeyGuard } from '../common/admin/admin-key.guard';
import { DomainError } from '../common/errors/domain-error';
import { ADMIN_PROBLEMS, ApiProblems, BODY_PROBLEMS, IDEMPOTENCY_PROBLEMS, UPSTREAM_PROBLEMS } from '../common/http/api-problems.decorator';
import { IDEMPOTENCY_HEADER } from '../common/idempotency/idempotency-header';
import { IdempotencyService } from '../common/idempotency/idempotency.service';
import { RedisKeys } from '../redis/redis-keys';
import { AddedInvoiceItem } from './added-invoice-item';
import { InvoiceItemDto } from './dto/invoice-item.dto';
import { InvoiceItemResponse } from './dto/invoice-item.view';
import { InvoiceItemsService } from './invoice-items.service';

const RESERVATION_ID = /^[A-Za-z0-9_-]{1,64}$/;

@ApiTags('admin')
@ApiBearerAuth('admin')
@Controller('admin/reservations')
@UseGuards(AdminKeyGuard)
export class AdminInvoiceItemsController {
  constructor(
    private readonly invoiceItems: InvoiceItemsService,
    private readonly idempotency: IdempotencyService,
  ) {}

  @Post(':reservationId/invoice-items')
  @ApiParam({ name: 'reservationId', example: 'res-checkout-usd' })
  @ApiHeader(IDEMPOTENCY_HEADER)
  @ApiOperation({
    summary: 'Add an invoice item to a reservation (operators)',
    description:
      'Through the current upstream endpoint, or the deprecated one when configured (which refuses realizationDates). A write that fails without an answer is checked by re-reading the reservation before answering.',
  })
  @ApiCreatedResponse({ type: InvoiceItemResponse })
  @ApiProblems(...BODY_PROBLEMS, ...ADMIN_PROBLEMS, 'reservation_not_found', 'invalid_state', ...IDEMPOTENCY_PROBLEMS, ...UPSTREAM_PROBLEMS)
  async add(
    @Param('reservationId') reservationId: string,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Body() body: InvoiceItemDto,
  ): Promise<AddedInvoiceItem> {
    if (!RESERVATION_ID.test(reservationId)) throw new DomainError('reservation_not_found', 'No reservation has this id.');
    // Refused before the key is claimed: a request refused for its body leaves nothing behind.
    this.invoiceItems.assertSendable([body]);
    // The operator's reads leave the budget's headroom to guests checking out.
    const answer = await this.idempotency.run(`admin-invoice-item:${reservationId}`, idempotencyKey, body, async () => ({
      status: 201,
      // run() has checked the key by now.
      body: await this.invoiceItems.add(reservationId, body, 'background', `admin:${reservationId}:${RedisKeys.digest(idempotencyKey!)}`),
    }));
    return answer.body;
  }
}
