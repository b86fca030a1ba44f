import { Body, Controller, Post, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ClientIpLimitGuard } from '../common/abuse/client-ip-limit.guard';
import { ApiProblems, BODY_PROBLEMS, UPSTREAM_PROBLEMS } from '../common/http/api-problems.decorator';
import { QuoteRequestDto } from './dto/quote-request.dto';
import { QuoteResponse } from './dto/quote.view';
import { QuoteView } from './quote';
import { QuotesService } from './quotes.service';

@ApiTags('booking')
@Controller('checkout/quotes')
export class QuotesController {
  constructor(private readonly quotes: QuotesService) {}

  @Post()
  @UseGuards(ClientIpLimitGuard)
  @ApiOperation({
    summary: 'A price quote for a stay: rate plans with their totals and breakdown, and an expiry',
    description:
      'An identical request within QUOTE_REUSE_SECONDS answers the same quote. 400 for dates that are not calendar dates, a check-in in the past, ' +
      'a check-out not after the check-in, more than 365 nights or guestsCount not 1-50 (nothing is sent upstream); 409 `dates_unavailable`; ' +
      "422 `stay_not_allowed` with the property's reason (minimum nights, guests, closed to arrival); a stay shorter than the arrival day's minimum " +
      'also carries `reason: stay_too_short` and `minNights` (the calendar day’s), for the site to word in its own language.',
  })
  @ApiCreatedResponse({ type: QuoteResponse })
  @ApiProblems(...BODY_PROBLEMS, 'listing_not_found', 'dates_unavailable', 'stay_not_allowed', 'rate_limited', ...UPSTREAM_PROBLEMS)
  create(@Body() body: QuoteRequestDto): Promise<QuoteView> {
    return this.quotes.create(body);
  }
}
