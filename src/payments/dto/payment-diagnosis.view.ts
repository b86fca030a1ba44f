import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

class DiagnosisView {
  @ApiProperty({ enum: ['ok', 'provider_mismatch', 'processor_error', 'not_attached'] })
  code!: string;

  @ApiProperty({ description: 'plain language: what happened and what to do', example: 'Paid in full: 638 EUR received. Nothing to do.' })
  message!: string;
}

class SafePaymentView {
  @ApiProperty()
  id!: string;

  @ApiProperty({ example: 'SUCCEEDED', description: 'as the booking platform reports it (PENDING, PENDING_AUTH, SUCCEEDED, FAILED, ...)' })
  status!: string;

  @ApiProperty({ example: 638 })
  amount!: number;

  @ApiProperty({ example: 'EUR' })
  currency!: string;

  @ApiPropertyOptional({ format: 'date-time' })
  createdAt?: string;

  @ApiPropertyOptional({ example: '4242' })
  last4?: string;

  @ApiPropertyOptional({ example: 'pp-city', description: 'the payment provider the payment went through' })
  paymentProviderId?: string;
}

/** For the OpenAPI description of both diagnostics routes. */
export class PaymentDiagnosisResponse {
  @ApiProperty({ enum: ['paid', 'payment_method_attached', 'missing'] })
  state!: string;

  @ApiProperty({ type: DiagnosisView })
  diagnosis!: DiagnosisView;

  @ApiProperty({ type: [SafePaymentView], description: 'the reservation money.payments, safe fields only' })
  payments!: SafePaymentView[];
}
