import { Body, Controller, Headers, Param, Post, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ClientIpLimitGuard } from '../common/abuse/client-ip-limit.guard';
import { ApiProblems, BODY_PROBLEMS, IDEMPOTENCY_PROBLEMS, UPSTREAM_PROBLEMS } from '../common/http/api-problems.decorator';
import { IDEMPOTENCY_HEADER } from '../common/idempotency/idempotency-header';
import { AddExtrasDto } from './dto/extras.dto';
import { AddedExtrasView } from './dto/extras.view';
import { ExtrasService } from './extras.service';

@ApiTags('checkout')
@Controller('checkout/sessions')
export class ExtrasController {
  constructor(private readonly extras: ExtrasService) {}

  @Post(':id/extras')
  @UseGuards(ClientIpLimitGuard)
  @ApiHeader(IDEMPOTENCY_HEADER)
  @ApiOperation({
    summary: 'Add extras from the catalogue (CHECKOUT_EXTRAS) to the booking, once the payment method is attached',
    description:
      'One invoice item per line: amount = catalogue amount × quantity (1-10). Codes, titles and amounts come from the catalogue only.',
  })
  @ApiCreatedResponse({ type: AddedExtrasView })
  @ApiProblems(...BODY_PROBLEMS, 'session_not_found', 'invalid_state', 'rate_limited', ...IDEMPOTENCY_PROBLEMS, ...UPSTREAM_PROBLEMS)
  add(
    @Param('id') id: string,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Body() body: AddExtrasDto,
  ): Promise<AddedExtrasView> {
    return this.extras.add(id, body, idempotencyKey);
  }
}
