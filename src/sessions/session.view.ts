import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { SameFields } from '../common/http/same-fields';
import {
  BookingStatus,
  CheckoutSessionView,
  CheckoutStatus,
  PaymentMethodSummary,
  SessionBooking,
  SessionCharge,
} from './checkout-session';

class SessionChargeView implements SessionCharge {
  @ApiProperty({
    enum: ['nothing', 'authenticate', 'another_card'],
    description:
      "what the platform's charges ask of the guest, as payment-status last found them: nothing; authenticate a charge with the card issuer (redirectUrl); " +
      'or give another card after a failed charge (lastError.code charge_failed): submit it to this session, which stays succeeded',
  })
  next!: SessionCharge['next'];

  @ApiPropertyOptional({ description: "with authenticate: the card issuer's page for the charge" })
  redirectUrl?: string;
}

class NextActionView implements NonNullable<CheckoutSessionView['nextAction']> {
  @ApiProperty({ enum: ['redirect'] })
  type!: 'redirect';

  @ApiProperty({ description: 'send the browser here (the issuer 3-D Secure page)' })
  redirectUrl!: string;
}

class PaymentMethodView implements PaymentMethodSummary {
  @ApiProperty()
  id!: string;

  @ApiProperty({ example: '4242' })
  last4!: string;

  @ApiPropertyOptional({ example: 'visa' })
  brand?: string;
}

class LastErrorView implements NonNullable<CheckoutSessionView['lastError']> {
  @ApiProperty({ example: 'card_declined' })
  code!: string;

  @ApiProperty()
  message!: string;
}

/** The reservation a booking session made from a quote (POST /checkout/sessions with quoteId). */
class SessionBookingView implements SessionBooking {
  @ApiProperty()
  reservationId!: string;

  @ApiProperty({ example: 'SBX-18D455' })
  confirmationCode!: string;

  @ApiProperty({
    enum: ['reserved', 'confirmed', 'expired', 'canceled'],
    description:
      'reserved (dates held) until the card is on file; confirmed after it with BOOKING_CONFIRMATION=instant; expired or canceled as the platform shows it when the hold ended, before the card or before its confirmation (never confirmed then: see notice)',
  })
  status!: BookingStatus;

  @ApiProperty({ example: '2031-07-14' })
  checkIn!: string;

  @ApiProperty({ example: '2031-07-17' })
  checkOut!: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'the dates are held until then unless paid (BOOKING_HOLD)' })
  holdExpiresAt?: string;

  @ApiPropertyOptional({
    description:
      'only when the platform showed the booking ended (canceled or expired) after its card was on file, so it was not confirmed: what became of the booking, the card and any money, in words for the guest',
  })
  notice?: string;
}

/** For the OpenAPI description of the session answers. */
export class CheckoutSessionResponse implements CheckoutSessionView {
  @ApiProperty({ example: 'cs_3q2...' })
  id!: string;

  @ApiProperty({ enum: ['requires_payment_method', 'requires_action', 'processing', 'succeeded', 'failed'], example: 'succeeded' })
  status!: CheckoutStatus;

  @ApiProperty()
  reservationId!: string;

  @ApiProperty()
  listingId!: string;

  @ApiProperty()
  paymentProviderId!: string;

  @ApiPropertyOptional({
    type: SessionChargeView,
    description: 'once succeeded and payment-status was read: what the guest needs to do next',
  })
  charge?: SessionChargeView;

  @ApiProperty({ example: 858 })
  amount!: number;

  @ApiProperty({ example: 'USD' })
  currency!: string;

  @ApiProperty({ format: 'date-time' })
  expiresAt!: string;

  @ApiPropertyOptional({ type: NextActionView, description: 'only while `requires_action`' })
  nextAction?: NextActionView;

  @ApiPropertyOptional({ type: PaymentMethodView, description: 'once `succeeded` (or `processing`)' })
  paymentMethod?: PaymentMethodView;

  @ApiPropertyOptional({ type: LastErrorView, description: 'after a failed attempt (`failed`, or `requires_payment_method` again)' })
  lastError?: LastErrorView;

  @ApiPropertyOptional({ type: SessionBookingView, description: 'only on a session that booked a quote' })
  booking?: SessionBookingView;
}

const _sessionFields: SameFields<CheckoutSessionResponse, CheckoutSessionView> = true;
const _bookingFields: SameFields<SessionBookingView, Omit<SessionBooking, 'holdNetwork'>> = true;

const SESSION_BASE = {
  id: 'cs_3q2Jw9sXbQ0nT4kLmV7yZa',
  reservationId: 'res-checkout-usd',
  listingId: 'listing-usd',
  paymentProviderId: 'provider-usd',
  amount: 858,
  currency: 'USD',
  expiresAt: '2031-07-01T12:30:00.000Z',
};

/** One example per status, each with only the fields that status carries. */
export const SESSION_EXAMPLES = {
  requires_payment_method: { summary: 'new: no card yet', value: { ...SESSION_BASE, status: 'requires_payment_method' } },
  requires_action: {
    summary: '3-D Secure: send the browser to nextAction.redirectUrl',
    value: {
      ...SESSION_BASE,
      status: 'requires_action',
      nextAction: { type: 'redirect', redirectUrl: 'https://issuer.example/3ds/challenge?attempt=att_1' },
    },
  },
  succeeded: {
    summary: 'the card is on the reservation',
    value: { ...SESSION_BASE, status: 'succeeded', paymentMethod: { id: 'pm_7d1e2f', last4: '4242', brand: 'visa' } },
  },
  failed: {
    summary: 'the attempt failed: another card may follow',
    value: { ...SESSION_BASE, status: 'failed', lastError: { code: 'card_declined', message: 'The card was declined. Try another card.' } },
  },
};
