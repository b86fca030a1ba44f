import { Body, Controller, Get, Headers, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiHeader, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ClientIpLimitGuard } from '../common/abuse/client-ip-limit.guard';
import { DomainError } from '../common/errors/domain-error';
import { ApiProblems } from '../common/http/api-problems.decorator';
import { IDEMPOTENCY_HEADER } from '../common/idempotency/idempotency-header';
import { Idempotency } from '../common/idempotency/idempotency.service';
import { CardPayments } from './card-payments.service';
import { CheckoutSessionView } from './checkout-session';
import { CheckoutSessions } from './checkout-sessions.service';
import { CreateSessionDto } from './dto/create-session.dto';
import { PaymentMethodDto } from './dto/payment-method.dto';
import { CheckoutSessionResponse } from './dto/session.view';

/** Exactly one body shape: the card with its billing details, or a token alone. */
function paymentMethodShape(body: PaymentMethodDto): { token: string } | { card: NonNullable<PaymentMethodDto['card']>; billing_details: NonNullable<PaymentMethodDto['billing_details']> } {
  if (body.token !== undefined) {
    if (body.card !== undefined || body.billing_details !== undefined) {
      throw DomainError.validation([{ field: 'token', message: 'send either token, or card with billing_details, not both' }]);
    }
    return { token: body.token };
  }
  const missing = (['card', 'billing_details'] as const).filter((field) => body[field] === undefined);
  if (missing.length > 0) throw DomainError.validation(missing.map((field) => ({ field, message: `${field} is required (or send token alone)` })));
  return { card: body.card!, billing_details: body.billing_details! };
}

@ApiTags('checkout')
@Controller('checkout/sessions')
export class SessionsController {
  constructor(
    private readonly sessions: CheckoutSessions,
    private readonly cards: CardPayments,
    private readonly idempotency: Idempotency,
  ) {}

  @Post()
  @UseGuards(ClientIpLimitGuard)
  @ApiOperation({ summary: 'Start paying for a reservation: its id and the guest email (amount and currency come from the reservation)' })
  @ApiCreatedResponse({ type: CheckoutSessionResponse })
  @ApiProblems(400, 404, 409, 415, 429, 502, 503)
  create(@Body() body: CreateSessionDto): Promise<CheckoutSessionView> {
    return this.sessions.create(body.reservationId, body.email);
  }

  @Get(':id')
  @ApiOperation({ summary: 'The session: status, amount, next action, payment method, last error' })
  @ApiOkResponse({ type: CheckoutSessionResponse })
  @ApiProblems(404, 503)
  get(@Param('id') id: string): Promise<CheckoutSessionView> {
    return this.sessions.get(id);
  }

  @Post(':id/payment-method')
  @HttpCode(200)
  @UseGuards(ClientIpLimitGuard)
  @ApiHeader(IDEMPOTENCY_HEADER)
  @ApiOperation({
    summary: 'Submit a card (tokenized with the listing provider, 3-D Secure when the issuer asks) or a token from the upstream form',
    description: 'Answers the session: `succeeded` (attached), or `requires_action` with `nextAction.redirectUrl` for the issuer page.',
  })
  @ApiOkResponse({ type: CheckoutSessionResponse })
  @ApiProblems(400, 402, 404, 409, 415, 422, 429, 502, 503)
  async submitPaymentMethod(
    @Param('id') id: string,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Body() body: PaymentMethodDto,
  ): Promise<CheckoutSessionView> {
    const shape = paymentMethodShape(body);
    // An unknown session answers 404 before its Idempotency-Key is stored: it writes nothing.
    const known = await this.cards.knownSession(id);
    const answer = await this.idempotency.run(`payment-method:${id}`, idempotencyKey, body, async () => ({
      status: 200,
      // run() has checked the key by now.
      body: 'token' in shape ? await this.cards.submitToken(known, shape.token, idempotencyKey!) : await this.cards.submitCard(known, shape, idempotencyKey!),
    }));
    return answer.body;
  }
}
