import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { IsISO31661Alpha2, IsNotEmpty, IsObject, IsString, Matches, MaxLength, ValidateNested } from 'class-validator';
import { Omittable } from '../../common/http/omittable';
import { cardDigits, IsCardCvc, IsCardNumber, IsNotExpired } from './card-rules';

/* Formats as the tokenization host requires them (docs/upstream-seed.md §2.2). */

export class CardDto {
  @ApiProperty({
    example: '4242 4242 4242 4242',
    description: '13-19 digits, Luhn-valid; spaces and dashes between them are allowed and removed',
  })
  @Transform(({ value }: { value: unknown }) => cardDigits(value))
  @IsString()
  @IsCardNumber()
  number!: string;

  @ApiProperty({ example: '12', description: 'two digits, 01-12' })
  @IsString()
  @Matches(/^(0[1-9]|1[0-2])$/, { message: 'card.exp_month must be two digits from 01 to 12' })
  exp_month!: string;

  @ApiProperty({ example: '2030', description: 'four digits, not in the past' })
  @IsString()
  @Matches(/^\d{4}$/, { message: 'card.exp_year must be four digits' })
  @IsNotExpired()
  exp_year!: string;

  @ApiProperty({ example: '123', description: '4 digits for American Express (numbers starting 34 or 37), 3 for the other brands' })
  @IsString()
  @IsCardCvc()
  cvc!: string;
}

export class BillingAddressDto {
  @ApiProperty({ example: '1 Ocean Drive', maxLength: 50 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(50)
  line1!: string;

  @ApiProperty({ example: 'Miami Beach', maxLength: 50 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(50)
  city!: string;

  @ApiProperty({ example: '33139', maxLength: 20 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(20)
  postal_code!: string;

  @ApiProperty({ example: 'US', description: 'ISO 3166 alpha-2' })
  @IsISO31661Alpha2({ message: 'billing_details.address.country must be an ISO 3166 alpha-2 code' })
  country!: string;
}

export class BillingDetailsDto {
  @ApiProperty({ example: 'Olivia Guest' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  name!: string;

  @ApiProperty({ type: BillingAddressDto })
  @IsObject({ message: 'billing_details.address must be an object' })
  @ValidateNested()
  @Type(() => BillingAddressDto)
  address!: BillingAddressDto;
}

/** Exactly one of: {card, billing_details}, or {token} from the upstream's own tokenization form. */
export class PaymentMethodDto {
  @ApiPropertyOptional({ type: CardDto })
  @Omittable()
  @IsObject({ message: 'card must be an object' })
  @ValidateNested()
  @Type(() => CardDto)
  card?: CardDto;

  @ApiPropertyOptional({ type: BillingDetailsDto })
  @Omittable()
  @IsObject({ message: 'billing_details must be an object' })
  @ValidateNested()
  @Type(() => BillingDetailsDto)
  billing_details?: BillingDetailsDto;

  @ApiPropertyOptional({ example: 'tok_5f2b...', description: 'a token id made by the upstream tokenization form' })
  @Omittable()
  @IsString({ message: 'token must be a token id' })
  @Matches(/^[A-Za-z0-9_-]{1,128}$/, { message: 'token must be a token id' })
  token?: string;
}
