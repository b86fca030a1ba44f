import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { Omittable } from '../../common/http/omittable';

export class QuoteRequestDto {
  @ApiProperty({ example: 'lst-seaside' })
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: 'listingId must be a listing id' })
  listingId!: string;

  @ApiProperty({ example: '2031-07-14', description: 'a calendar date, not in the past' })
  @IsString()
  @Matches(/^\d{4}-\d{2}-\d{2}$/, { message: 'checkIn must be a date (YYYY-MM-DD)' })
  checkIn!: string;

  @ApiProperty({ example: '2031-07-17', description: 'after checkIn, at most 365 nights later' })
  @IsString()
  @Matches(/^\d{4}-\d{2}-\d{2}$/, { message: 'checkOut must be a date (YYYY-MM-DD)' })
  checkOut!: string;

  @ApiProperty({ example: 2, minimum: 1, maximum: 50 })
  @IsInt({ message: 'guestsCount must be a whole number' })
  @Min(1)
  @Max(50)
  guestsCount!: number;

  @ApiPropertyOptional({ example: 'SANDBOX10' })
  @Omittable()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value))
  @IsString()
  @MaxLength(40)
  @Matches(/^[A-Za-z0-9_-]+$/, { message: 'coupon must be letters, digits, "-" or "_"' })
  coupon?: string;
}
