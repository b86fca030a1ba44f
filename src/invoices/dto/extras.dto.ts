import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsInt, IsString, Matches, Max, Min, ValidateNested } from 'class-validator';
import { Omittable } from '../../common/http/omittable';

export const MAX_EXTRA_QUANTITY = 10;
export const MAX_EXTRA_LINES = 10;

const QUANTITY_MESSAGE = `quantity must be a whole number from 1 to ${MAX_EXTRA_QUANTITY}`;

export class ExtraLineDto {
  @ApiProperty({ example: 'late-checkout', description: 'a code of the CHECKOUT_EXTRAS catalogue' })
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{1,40}$/, { message: 'code must be an extra code' })
  code!: string;

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_EXTRA_QUANTITY, default: 1 })
  @Omittable()
  @IsInt({ message: QUANTITY_MESSAGE })
  @Min(1, { message: QUANTITY_MESSAGE })
  @Max(MAX_EXTRA_QUANTITY, { message: QUANTITY_MESSAGE })
  quantity?: number;
}

/** Extras a guest adds to the booking; titles, types and amounts come from the catalogue only. */
export class AddExtrasDto {
  @ApiProperty({ type: [ExtraLineDto], minItems: 1, maxItems: MAX_EXTRA_LINES })
  @IsArray()
  @ArrayMinSize(1, { message: 'items must list at least one extra' })
  @ArrayMaxSize(MAX_EXTRA_LINES, { message: `items may list at most ${MAX_EXTRA_LINES} extras` })
  @ValidateNested({ each: true })
  @Type(() => ExtraLineDto)
  items!: ExtraLineDto[];
}
