import { Controller, Get, Param, Query, Req, Res, UseGuards } from '@nestjs/common';
import { FastifyReply, FastifyRequest } from 'fastify';
import { ApiOkResponse, ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import { ClientIpReadLimitGuard } from '../common/abuse/client-ip-limit.guard';
import { DomainError, FieldError } from '../common/errors/domain-error';
import { ApiProblems, UPSTREAM_PROBLEMS } from '../common/http/api-problems.decorator';
import { ApiPublicCaching } from '../common/http/api-public-caching.decorator';
import { sendPublicText } from '../common/http/public-answer';
import { CalendarService } from './calendar.service';
import { CalendarResponse } from './dto/calendar.view';
import { dayNumber, isCalendarDate } from './stay-dates';

const LISTING_ID = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_DAYS = 366;

@ApiTags('booking')
@Controller('checkout/listings')
export class CalendarController {
  constructor(private readonly calendar: CalendarService) {}

  // Counted per IP (CHECKOUT_IP_READ_LIMIT), held or not: an uncached month costs an upstream read, and a
  // range read again from the same month copies is answered with the text and ETag made for it.
  @Get(':id/calendar')
  @UseGuards(ClientIpReadLimitGuard)
  @ApiOperation({
    summary: "A listing's days: availability, price, minimum nights, check-in and check-out allowed",
    description:
      '`from` and `to` included, at most 366 days; `from` at most a day in the past (400 otherwise), past days answered unavailable. ' +
      'Served from a cache refreshed by bookings and webhooks (CALENDAR_CACHE_SECONDS); public and cacheable by a browser or CDN (ETag, If-None-Match → 304).',
  })
  @ApiParam({ name: 'id', description: 'the listing', example: 'lst-seaside' })
  @ApiQuery({
    name: 'from',
    required: true,
    description: 'the first day (YYYY-MM-DD), not more than a day in the past',
    schema: { type: 'string', format: 'date', example: '2031-07-01' },
  })
  @ApiQuery({
    name: 'to',
    required: true,
    description: 'the last day (YYYY-MM-DD), included; at most 366 days from `from`',
    schema: { type: 'string', format: 'date', example: '2031-07-31' },
  })
  @ApiOkResponse({ type: CalendarResponse })
  @ApiPublicCaching('CALENDAR_CACHE_SECONDS')
  @ApiProblems('validation_failed', 'listing_not_found', 'rate_limited', ...UPSTREAM_PROBLEMS)
  get(
    @Param('id') id: string,
    @Query('from') from: unknown,
    @Query('to') to: unknown,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> | undefined {
    // Typed `unknown`, the global pipe passes them as sent (an array when repeated); the range is judged here, whole.
    const problems = rangeProblems(from, to);
    if (problems.length > 0) throw DomainError.validation(problems);
    if (!LISTING_ID.test(id)) throw new DomainError('listing_not_found', 'No listing has this id.');
    return sendPublicText(request, reply, this.calendar.daysText(id, from as string, to as string), this.calendar.caching);
  }
}

/** What is wrong with a calendar's `from` and `to` as sent: not dates, in the wrong order, too far apart. */
function rangeProblems(from: unknown, to: unknown): FieldError[] {
  const problems: FieldError[] = [];
  for (const [field, value] of [
    ['from', from],
    ['to', to],
  ] as const) {
    if (typeof value !== 'string' || !isCalendarDate(value))
      problems.push({ field, message: `${field} must be a calendar date (YYYY-MM-DD)` });
  }
  if (problems.length === 0) {
    const days = dayNumber(to as string) - dayNumber(from as string) + 1;
    if (days < 1) problems.push({ field: 'to', message: 'to must not be before from' });
    else if (days > MAX_DAYS) problems.push({ field: 'to', message: `at most ${MAX_DAYS} days at once` });
  }
  return problems;
}
