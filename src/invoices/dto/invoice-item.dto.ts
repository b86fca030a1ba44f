import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsNumber,
  IsString,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { INVOICE_ITEM_NORMAL_TYPES, INVOICE_ITEM_SECOND_IDENTIFIERS } from '../../config/invoice-item-rules';
import { IsCalendarDate, MatchesNormalType } from './invoice-item-validators';
import { Omittable } from '../../common/http/omittable';

/*
 * The invoice item of docs/upstream-seed.md §2.4, validated by the upstream's public reference
 * (docs/upstream.md "Invoice items"). Whether `secondIdentifier` is required depends on the
 * endpoint, so InvoiceItemsService.assertSendable judges it; of the reference's realizationDates
 * shapes, the product takes `{date}` (docs/product-spec.md §4).
 */

export class RealizationDateDto {
  @ApiProperty({ example: '2026-07-14', description: 'a real calendar date, YYYY-MM-DD' })
  @IsCalendarDate({ message: 'date must be a real calendar date written YYYY-MM-DD' })
  date!: string;
}

export class InvoiceItemDto {
  @ApiProperty({
    enum: INVOICE_ITEM_NORMAL_TYPES,
    example: 'CF',
    description: 'the upstream category code; AF (accommodation fare) is not allowed',
  })
  @IsIn(INVOICE_ITEM_NORMAL_TYPES, { message: `normalType must be one of ${INVOICE_ITEM_NORMAL_TYPES.join(', ')} (AF is not allowed)` })
  normalType!: string;

  @ApiProperty({ example: 'Late checkout', maxLength: 200 })
  @IsString({ message: 'title is required, as a string' })
  @IsNotEmpty({ message: 'title is required' })
  @MaxLength(200)
  title!: string;

  @ApiProperty({ example: 40, description: 'in the reservation currency' })
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'amount must be a finite number' })
  amount!: number;

  @ApiPropertyOptional({ example: 'Check out at 14:00', maxLength: 500 })
  @Omittable()
  @IsString()
  @MaxLength(500)
  description?: string;

  @ApiPropertyOptional({
    enum: INVOICE_ITEM_SECOND_IDENTIFIERS,
    example: 'LATE_CHECKOUT',
    description:
      "one of the platform's values; required when normalType is AFE and refused otherwise, or required on every item when the service uses the deprecated endpoint (INVOICE_ITEMS_ENDPOINT=deprecated)",
  })
  @MatchesNormalType()
  secondIdentifier?: string;

  @ApiPropertyOptional({
    type: [RealizationDateDto],
    description: 'accounting customers only; refused when the service uses the deprecated endpoint (INVOICE_ITEMS_ENDPOINT=deprecated)',
  })
  @Omittable()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(366)
  @ValidateNested({ each: true })
  @Type(() => RealizationDateDto)
  realizationDates?: RealizationDateDto[];

  @ApiPropertyOptional({
    example: true,
    description:
      "a guest's extra (the platform's upsell fee, changelog of 2026-04-27); left out on the deprecated endpoint, which cannot say it",
  })
  @Omittable()
  @IsBoolean({ message: 'isUpsellFee must be true or false' })
  isUpsellFee?: boolean;

  @ApiPropertyOptional({
    example: 0,
    minimum: 0,
    description: 'which stay of the reservation the item belongs to (changelog of 2026-04-27); left out on the deprecated endpoint',
  })
  @Omittable()
  @IsInt({ message: 'stayIndex must be a whole number' })
  @Min(0)
  stayIndex?: number;
}
