import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

class NextActionView {
  @ApiProperty({ enum: ['redirect'] })
  type!: 'redirect';

  @ApiProperty({ description: 'send the browser here (the issuer 3-D Secure page)' })
  redirectUrl!: string;
}

class PaymentMethodView {
  @ApiProperty()
  id!: string;

  @ApiProperty({ example: '4242' })
  last4!: string;

  @ApiPropertyOptional({ example: 'visa' })
  brand?: string;
}

class LastErrorView {
  @ApiProperty({ example: 'card_declined' })
  code!: string;

  @ApiProperty()
  message!: string;
}

/** For the OpenAPI description of the session answers. */
export class CheckoutSessionResponse {
  @ApiProperty({ example: 'cs_3q2...' })
  id!: string;

  @ApiProperty({ enum: ['requires_payment_method', 'requires_action', 'succeeded', 'failed'] })
  status!: string;

  @ApiProperty()
  reservationId!: string;

  @ApiProperty()
  listingId!: string;

  @ApiProperty()
  paymentProviderId!: string;

  @ApiProperty({ example: 858 })
  amount!: number;

  @ApiProperty({ example: 'USD' })
  currency!: string;

  @ApiProperty({ format: 'date-time' })
  expiresAt!: string;

  @ApiPropertyOptional({ type: NextActionView })
  nextAction?: NextActionView;

  @ApiPropertyOptional({ type: PaymentMethodView })
  paymentMethod?: PaymentMethodView;

  @ApiPropertyOptional({ type: LastErrorView })
  lastError?: LastErrorView;
}
