import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { SameFields } from '../../common/http/same-fields';
import { RatePlanView, QuoteView } from '../quote';

class BreakdownResponse implements Readonly<RatePlanView['breakdown']> {
  @ApiProperty({
    example: 720,
    description: 'the nights at the calendar prices, before any discount (the platform’s accommodation fare line plus the discount)',
  })
  accommodation!: number;

  @ApiProperty({ example: 60, description: 'the platform’s cleaning-fee lines (normalType CF)' })
  cleaning!: number;

  @ApiProperty({
    example: 0,
    description:
      'every other line the platform counts in the total (additional fees): total − (accommodation − discount + cleaning + taxes)',
  })
  fees!: number;

  @ApiProperty({ example: 78, description: 'the platform’s tax lines' })
  taxes!: number;

  @ApiProperty({ example: 0, description: 'taken off the accommodation (rate plan, coupon)' })
  discount!: number;
}

class RatePlanResponse implements RatePlanView {
  @ApiProperty({ example: 'rp-flexible' })
  id!: string;

  @ApiProperty({ example: 'Flexible' })
  name!: string;

  @ApiProperty({
    example: 858,
    description:
      'the platform’s own total for this rate plan (subTotalPrice + totalTaxes; never hostPayout, the host’s net after a channel’s commission): what the reservation’s balance will be, what the bank is asked to authenticate and what the session charges. The breakdown is read from the platform’s invoice lines by type and always adds up to it: accommodation − discount + cleaning + fees + taxes = total.',
  })
  total!: number;

  @ApiProperty({ type: BreakdownResponse })
  breakdown!: BreakdownResponse;
}

export class QuoteResponse implements QuoteView {
  @ApiProperty({ example: 'q_5Jx2Yb0yq8VbS4m1tWc3dA', description: "the service's own id (128 random bits)" })
  id!: string;

  @ApiProperty({ example: 'lst-seaside' })
  listingId!: string;

  @ApiProperty({ example: '2031-07-14' })
  checkIn!: string;

  @ApiProperty({ example: '2031-07-17' })
  checkOut!: string;

  @ApiProperty({ example: 3 })
  nights!: number;

  @ApiProperty({ example: 2 })
  guestsCount!: number;

  @ApiProperty({ example: 'USD' })
  currency!: string;

  @ApiPropertyOptional({ example: 'SANDBOX10', description: 'the coupon asked for' })
  coupon?: string;

  @ApiPropertyOptional({
    example: true,
    description:
      "only with a coupon: whether the platform's prices include it (false: an unknown or expired coupon; the prices are without it)",
  })
  couponApplied?: boolean;

  @ApiPropertyOptional({
    example: 'The coupon SUMMER10 is not valid for this stay; the prices shown are without it.',
    description: 'only when couponApplied is false: the reason, in words the site may show',
  })
  couponMessage?: string;

  @ApiProperty({ format: 'date-time' })
  expiresAt!: string;

  @ApiProperty({ type: [RatePlanResponse] })
  ratePlans!: RatePlanResponse[];
}

const _quoteFields: SameFields<QuoteResponse, QuoteView> = true;
const _ratePlanFields: SameFields<RatePlanResponse, RatePlanView> = true;
