import { Controller, Get, Param, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ClientIpReadLimitGuard } from '../common/abuse/client-ip-limit.guard';
import { ApiProblems, UPSTREAM_PROBLEMS } from '../common/http/api-problems.decorator';
import { DomainError } from '../common/errors/domain-error';
import { ListingSummaries } from './listing-summaries.service';
import { ListingSummary } from './listing-summary';

const LISTING_ID = /^[A-Za-z0-9_-]{1,64}$/;

@ApiTags('checkout')
@Controller('checkout/listings')
export class ListingsController {
  constructor(private readonly summaries: ListingSummaries) {}

  // Counted per IP (CHECKOUT_IP_READ_LIMIT): an uncached id costs an upstream read.
  @Get(':id')
  @UseGuards(ClientIpReadLimitGuard)
  @ApiOperation({ summary: 'A short public summary of a listing (cached)' })
  @ApiOkResponse({ type: ListingSummary })
  @ApiProblems('listing_not_found', 'rate_limited', ...UPSTREAM_PROBLEMS)
  get(@Param('id') id: string): Promise<ListingSummary> {
    if (!LISTING_ID.test(id)) throw new DomainError('listing_not_found', 'No listing has this id.');
    return this.summaries.get(id);
  }
}
