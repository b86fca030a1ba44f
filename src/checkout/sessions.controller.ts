import { Body, Controller, Get, Headers, Ip, Param, Post, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiHeader, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ClientIpLimitGuard } from '../common/abuse/client-ip-limit.guard';
import { DomainError, FieldError } from '../common/errors/domain-error';
import { ApiProblems, BODY_PROBLEMS, IDEMPOTENCY_PROBLEMS, UPSTREAM_PROBLEMS } from '../common/http/api-problems.decorator';
import { IDEMPOTENCY_HEADER } from '../common/idempotency/idempotency-header';
import { IdempotencyService } from '../common/idempotency/idempotency.service';
import { CheckoutSessionView } from '../sessions/checkout-session';
import { BookingRequest, QuoteBookings } from '../sessions/quote-bookings';
import { CheckoutSessionsService } from './checkout-sessions.service';
import { CreateSessionDto } from './dto/create-session.dto';
import { CheckoutSessionResponse, SESSION_EXAMPLES } from '../sessions/session.view';

type SessionShape = { reservationId: string; email: string; confirmationCode?: string } | BookingRequest;

/** Exactly one shape: an existing reservation with its guest's email, or a quote with its guest. */
function sessionShape(body: CreateSessionDto): SessionShape {
  if (body.quoteId !== undefined) {
    const extra = (['reservationId', 'email', 'confirmationCode'] as const).filter((field) => body[field] !== undefined);
    const problems: FieldError[] = extra.map((field) => ({
      field,
      message: `send either quoteId with guest, or reservationId with email, not ${field} too`,
    }));
    if (body.guest == null) problems.push({ field: 'guest', message: 'guest is required to book a quote' });
    if (problems.length > 0) throw DomainError.validation(problems);
    return { quoteId: body.quoteId, ...(body.ratePlanId ? { ratePlanId: body.ratePlanId } : {}), guest: { ...body.guest! } };
  }
  const missing = (['reservationId', 'email'] as const).filter((field) => body[field] === undefined);
  const problems: FieldError[] = missing.map((field) => ({ field, message: `${field} is required (or send quoteId with guest to book)` }));
  for (const field of ['ratePlanId', 'guest'] as const) {
    if (body[field] !== undefined) problems.push({ field, message: `${field} goes with quoteId` });
  }
  if (problems.length > 0) throw DomainError.validation(problems);
  return {
    reservationId: body.reservationId!,
    email: body.email!,
    ...(body.confirmationCode ? { confirmationCode: body.confirmationCode } : {}),
  };
}

@ApiTags('checkout')
@Controller('checkout/sessions')
export class SessionsController {
  constructor(
    private readonly sessions: CheckoutSessionsService,
    private readonly idempotency: IdempotencyService,
    private readonly bookings: QuoteBookings,
  ) {}

  @Post()
  @UseGuards(ClientIpLimitGuard)
  @ApiHeader({
    ...IDEMPOTENCY_HEADER,
    required: false,
    description: `required when booking a quote (quoteId), one per booking attempt; ignored otherwise. ${IDEMPOTENCY_HEADER.description}`,
  })
  @ApiOperation({
    summary: 'Start paying for a reservation ({reservationId, email}), or book a quote first ({quoteId, ratePlanId?, guest})',
    description:
      'With `reservationId` and `email` (and optionally its `confirmationCode`): amount and currency come from the reservation; no reservation by that id with that email (and code): 404 ' +
      '`reservation_not_found`, and after CHECKOUT_RESERVATION_MISSES_PER_IP of those from the address, 429 `rate_limited` before the platform is asked. With `quoteId` and `guest` (and an `Idempotency-Key`): ' +
      'the guest is created or merged by email, a reservation is made from the quote as `reserved`, holding its dates for BOOKING_HOLD, and the ' +
      'session opened on it carries `booking`. Another key for a quote already booked: 409 `quote_used`; the quote unknown or expired: 404 `quote_not_found` ' +
      '(a `quoteId` that is not of the form of a quote id at all is 400 `validation_failed` on `quoteId`); ' +
      'its dates taken meanwhile: 409 `dates_unavailable`; ' +
      'a stay longer than BOOKING_MAX_NIGHTS: 422 `stay_not_allowed` with `reason: stay_too_long` and `maxNights` (it is still quoted); more unpaid holds than BOOKING_HOLDS_PER_IP from the address, or ' +
      "than BOOKING_UNPAID_HOLDS_PER_LISTING or nights held unpaid than BOOKING_UNPAID_NIGHTS_PER_LISTING on the listing at once (every network's holds counted, " +
      'its first too, until paid, canceled or the hold ends): 429 `rate_limited` with Retry-After, before anything is sent to the platform and without claiming the Idempotency-Key.',
  })
  @ApiCreatedResponse({ type: CheckoutSessionResponse, examples: { requires_payment_method: SESSION_EXAMPLES.requires_payment_method } })
  @ApiProblems(
    ...BODY_PROBLEMS,
    'reservation_not_found',
    'quote_not_found',
    'quote_used',
    'dates_unavailable',
    'stay_not_allowed',
    'rate_limited',
    'payment_account_unavailable',
    ...IDEMPOTENCY_PROBLEMS,
    ...UPSTREAM_PROBLEMS,
  )
  async create(
    @Body() body: CreateSessionDto,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Ip() clientIp: string,
  ): Promise<CheckoutSessionView> {
    const shape = sessionShape(body);
    if ('reservationId' in shape) {
      return this.sessions.create(shape.reservationId, shape.email, clientIp, shape.confirmationCode);
    }
    // An unknown quote or rate plan answers before the Idempotency-Key is stored: it writes nothing.
    const booking = await this.bookings.admit(shape, clientIp);
    const answer = await this.idempotency.run(`booking:${shape.quoteId}`, idempotencyKey, body, async () => ({
      status: 201,
      // run() has checked the key by now.
      body: await booking.book(idempotencyKey!),
    }));
    return answer.body;
  }

  @Get(':id')
  @ApiOperation({ summary: 'The session: status, amount, next action, payment method, last error' })
  @ApiOkResponse({ type: CheckoutSessionResponse, examples: SESSION_EXAMPLES })
  @ApiProblems('session_not_found', 'store_unavailable')
  get(@Param('id') id: string): Promise<CheckoutSessionView> {
    return this.sessions.get(id);
  }
}
