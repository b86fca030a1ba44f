import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { SameFields } from '../../common/http/same-fields';
import { DiagnosisCode, FailureCategory, PaymentDiagnosis, PaymentState, SafePayment } from '../payment-diagnosis';

class DiagnosisView implements Readonly<PaymentDiagnosis['diagnosis']> {
  @ApiProperty({ enum: ['ok', 'provider_mismatch', 'processor_error', 'not_attached', 'authentication_required'] })
  code!: DiagnosisCode;

  @ApiProperty({ description: 'plain language: what happened and what to do', example: 'Your booking is paid. Nothing more to do.' })
  message!: string;

  @ApiPropertyOptional({
    enum: ['insufficient_funds', 'card_declined', 'authentication_failed', 'processing_error'],
    description: "only with processor_error: why the charge failed, in a word the site may branch on (never the processor's own words)",
  })
  category?: FailureCategory;
}

class SafePaymentView implements SafePayment {
  @ApiProperty()
  id!: string;

  @ApiProperty({ example: 'SUCCEEDED', description: 'as the booking platform reports it (PENDING, PENDING_AUTH, SUCCEEDED, FAILED, ...)' })
  status!: string;

  @ApiProperty({ example: 638 })
  amount!: number;

  @ApiProperty({ example: 'EUR' })
  currency!: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'when the platform charges it (its shouldBePaidAt)' })
  dueAt?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'when it was paid (only once SUCCEEDED)' })
  paidAt?: string;

  @ApiPropertyOptional({ format: 'date-time' })
  createdAt?: string;

  @ApiPropertyOptional({ example: '4242' })
  last4?: string;
}

class NextPaymentView implements NonNullable<PaymentDiagnosis['nextPayment']> {
  @ApiProperty({ example: 220 })
  amount!: number;

  @ApiProperty({ format: 'date-time', description: 'when the platform charges it' })
  dueAt!: string;
}

class NextActionView implements NonNullable<PaymentDiagnosis['nextAction']> {
  @ApiProperty({ enum: ['redirect'] })
  type!: 'redirect';

  @ApiProperty({ description: "the card issuer's authentication page (https in production): send the guest there" })
  redirectUrl!: string;
}

/** For the OpenAPI description of both diagnostics routes (docs/product-spec.md §3.2). */
export class PaymentDiagnosisResponse implements PaymentDiagnosis {
  @ApiProperty({
    enum: ['paid', 'scheduled', 'requires_authentication', 'failed', 'payment_method_attached', 'balance_due', 'missing'],
    description:
      'paid: nothing is due; scheduled: the card is on file and payments are scheduled or being charged (nextPayment); ' +
      "requires_authentication: a charge waits for the guest's authentication (nextAction); failed: a charge failed (the guest adds another card); " +
      'payment_method_attached: the card is on file and no payment shows yet; ' +
      "balance_due: the card's payments went through but amountDue remains and the platform schedules none of it (e.g. an extra added later): the host collects it, nothing is being processed; missing: no usable card of this service is on the reservation",
  })
  state!: PaymentState;

  @ApiPropertyOptional({ example: 'EUR' })
  currency?: string;

  @ApiProperty({ example: 220, description: 'what the reservation shows paid (money.totalPaid)' })
  amountPaid!: number;

  @ApiProperty({ example: 220, description: "what remains to be paid in all (the reservation's balance)" })
  amountDue!: number;

  @ApiPropertyOptional({ type: NextPaymentView, description: 'the next installment not yet paid' })
  nextPayment?: NextPaymentView;

  @ApiPropertyOptional({ type: NextActionView, description: 'only with requires_authentication' })
  nextAction?: NextActionView;

  @ApiProperty({ type: DiagnosisView })
  diagnosis!: DiagnosisView;

  @ApiProperty({ type: [SafePaymentView], description: 'the reservation money.payments, safe fields only' })
  payments!: SafePaymentView[];
}

const _diagnosisFields: SameFields<PaymentDiagnosisResponse, PaymentDiagnosis> = true;
const _paymentFields: SameFields<SafePaymentView, SafePayment> = true;
