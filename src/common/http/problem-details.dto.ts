import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ERROR_CODES } from '../errors/error-code';

export class FieldErrorDto {
  @ApiProperty({ example: 'card.number' })
  field!: string;

  @ApiProperty({ example: 'card.number is not a valid card number' })
  message!: string;
}

/** The RFC 9457 body of every error (docs/product-spec.md §3), for the OpenAPI description. */
export class ProblemDetailsDto {
  @ApiProperty({ example: 'urn:problem:checkout:validation_failed' })
  type!: string;

  @ApiProperty({ example: 'The request is not valid' })
  title!: string;

  @ApiProperty({ example: 400 })
  status!: number;

  @ApiProperty({ example: 'Some fields are not valid.' })
  detail!: string;

  @ApiProperty({
    example: 'validation_failed',
    enum: Object.keys(ERROR_CODES),
    description: 'Stable machine word; switch on this, not on the text.',
  })
  code!: string;

  @ApiPropertyOptional({ type: [FieldErrorDto] })
  errors?: FieldErrorDto[];

  @ApiPropertyOptional({
    enum: ['stay_too_short', 'stay_too_long'],
    example: 'stay_too_short',
    description:
      'only with `stay_not_allowed` refusing the stay’s length: `stay_too_short` comes with `minNights`, `stay_too_long` with `maxNights`. Stable: word the refusal from these, not from `detail`.',
  })
  reason?: 'stay_too_short' | 'stay_too_long';

  @ApiPropertyOptional({
    example: 3,
    description: 'with `stay_too_short`: the least nights a stay arriving that day may have (the calendar day’s `minNights`)',
  })
  minNights?: number;

  @ApiPropertyOptional({ example: 31, description: 'with `stay_too_long`: the most nights the service books online' })
  maxNights?: number;

  @ApiProperty({ example: '6f1c2a9e-1d7b-4c55-9d0e-2b1f3f7a9c10' })
  requestId!: string;
}
