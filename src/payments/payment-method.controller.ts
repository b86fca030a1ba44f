import { Body, Controller, Headers, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ClientIpLimitGuard } from '../common/abuse/client-ip-limit.guard';
import { DomainError } from '../common/errors/domain-error';
import { ApiProblems, BODY_PROBLEMS, IDEMPOTENCY_PROBLEMS, UPSTREAM_PROBLEMS } from '../common/http/api-problems.decorator';
import { IDEMPOTENCY_HEADER } from '../common/idempotency/idempotency-header';
import { CheckoutSessionView } from '../sessions/checkout-session';
import { CheckoutSessionResponse, SESSION_EXAMPLES } from '../sessions/session.view';
import { CardPaymentsService } from './card-payments.service';
import { PaymentMethodDto } from './dto/payment-method.dto';

/** Exactly one body shape: the card with its billing details, or a token alone. */
function paymentMethodShape(
  body: PaymentMethodDto,
): { token: string } | { card: NonNullable<PaymentMethodDto['card']>; billing_details: NonNullable<PaymentMethodDto['billing_details']> } {
  if (body.token !== undefined) {
    if (body.card !== undefined || body.billing_details !== undefined) {
      throw DomainError.validation([{ field: 'token', message: 'send either token, or card with billing_details, not both' }]);
    }
    return { token: body.token };
  }
  const missing = (['card', 'billing_details'] as const).filter((field) => body[field] === undefined);
  if (missing.length > 0)
    throw DomainError.validation(missing.map((field) => ({ field, message: `${field} is required (or send token alone)` })));
  return { card: body.card!, billing_details: body.billing_details! };
}

/** The two shapes, never together: the service refuses a body with both. */
const PAYMENT_METHOD_EXAMPLES = {
  card: {
    summary: 'a card with its billing details (tokenized by the service)',
    value: {
      card: { number: '4242424242424242', exp_month: '12', exp_year: '2030', cvc: '123' },
      billing_details: {
        name: 'Olivia Guest',
        address: { line1: '1 Ocean Drive', city: 'Miami Beach', postal_code: '33139', country: 'US' },
      },
    },
  },
  token: { summary: 'a token made by the upstream tokenization form, alone', value: { token: 'tok_5f2b9c1d' } },
};

/** The card (tokenized here with the listing's provider) or token a guest submits for a session. */
@ApiTags('checkout')
@Controller('checkout/sessions')
export class PaymentMethodController {
  constructor(private readonly cards: CardPaymentsService) {}

  @Post(':id/payment-method')
  @HttpCode(200)
  @UseGuards(ClientIpLimitGuard)
  @ApiHeader(IDEMPOTENCY_HEADER)
  @ApiOperation({
    summary: 'Submit a card (tokenized with the listing provider, 3-D Secure when the issuer asks) or a token from the upstream form',
    description: 'Answers the session: `succeeded` (attached), or `requires_action` with `nextAction.redirectUrl` for the issuer page.',
  })
  @ApiBody({ type: PaymentMethodDto, examples: PAYMENT_METHOD_EXAMPLES })
  @ApiOkResponse({
    type: CheckoutSessionResponse,
    examples: { requires_action: SESSION_EXAMPLES.requires_action, succeeded: SESSION_EXAMPLES.succeeded },
  })
  @ApiProblems(
    ...BODY_PROBLEMS,
    'card_declined',
    'session_not_found',
    'invalid_state',
    'already_paid',
    'hold_expired',
    'rate_limited',
    'payment_account_unavailable',
    ...IDEMPOTENCY_PROBLEMS,
    ...UPSTREAM_PROBLEMS,
  )
  async submitPaymentMethod(
    @Param('id') id: string,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Body() body: PaymentMethodDto,
  ): Promise<CheckoutSessionView> {
    return this.cards.submitPaymentMethod(id, idempotencyKey, body, paymentMethodShape(body));
  }
}
