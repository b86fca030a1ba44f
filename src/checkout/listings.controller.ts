import { Controller, Get, Param, Req, Res, UseGuards } from '@nestjs/common';
import { FastifyReply, FastifyRequest } from 'fastify';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ClientIpReadLimitGuard } from '../common/abuse/client-ip-limit.guard';
import { ApiProblems, UPSTREAM_PROBLEMS } from '../common/http/api-problems.decorator';
import { ApiPublicCaching } from '../common/http/api-public-caching.decorator';
import { sendPublicText } from '../common/http/public-answer';
import { DomainError } from '../common/errors/domain-error';
import { ListingSummariesService, SUMMARY_CACHING } from './listing-summaries.service';
import { ListingSummary } from './listing-summary';

const LISTING_ID = /^[A-Za-z0-9_-]{1,64}$/;

@ApiTags('checkout')
@Controller('checkout/listings')
export class ListingsController {
  constructor(private readonly summaries: ListingSummariesService) {}

  // Counted per IP (CHECKOUT_IP_READ_LIMIT), held or not: an uncached id costs an upstream read, and a
  // summary this replica holds is answered from its copy's text and ETag (a 304 is decided from them).
  @Get(':id')
  @ApiParam({ name: 'id', description: 'the listing', example: 'lst-seaside' })
  @UseGuards(ClientIpReadLimitGuard)
  @ApiOperation({ summary: 'A short public summary of a listing (cached)' })
  @ApiOkResponse({ type: ListingSummary })
  @ApiPublicCaching('the summary cache, 5 minutes')
  @ApiProblems('listing_not_found', 'rate_limited', ...UPSTREAM_PROBLEMS)
  get(@Param('id') id: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> | undefined {
    if (!LISTING_ID.test(id)) throw new DomainError('listing_not_found', 'No listing has this id.');
    return sendPublicText(request, reply, this.summaries.text(id), SUMMARY_CACHING);
  }
}
