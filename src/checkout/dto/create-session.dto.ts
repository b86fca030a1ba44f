import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { IsEmail, IsNotEmpty, IsObject, IsString, Matches, MaxLength, ValidateNested } from 'class-validator';
import { Omittable } from '../../common/http/omittable';

const trimmed = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

export class BookingGuestDto {
  @ApiProperty({ example: 'Ada' })
  @Transform(trimmed)
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  firstName!: string;

  @ApiProperty({ example: 'Lovelace' })
  @Transform(trimmed)
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  lastName!: string;

  @ApiProperty({ example: 'ada@example.com', description: 'the platform merges guests by email' })
  @Transform(trimmed)
  @IsString()
  @MaxLength(254)
  @IsEmail({}, { message: 'guest.email must be an email address' })
  email!: string;

  @ApiPropertyOptional({ example: '+14155550123', description: 'E.164' })
  @Omittable()
  @IsString()
  @Matches(/^\+[1-9]\d{6,14}$/, { message: 'guest.phone must be an E.164 number such as +14155550123' })
  phone?: string;
}

/**
 * Either shape of docs/product-spec.md §3: `{reservationId, email}` pays an existing reservation;
 * `{quoteId, ratePlanId?, guest}` books a quote first (§3.1). Which one is checked by the controller.
 */
export class CreateSessionDto {
  @ApiPropertyOptional({ example: 'res-checkout-usd', description: 'paying an existing reservation: its id' })
  @Omittable()
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: 'reservationId must be a reservation id' })
  reservationId?: string;

  @ApiPropertyOptional({
    example: 'olivia@example.com',
    description: "paying an existing reservation: its guest's email (case-insensitive)",
  })
  @Omittable()
  @Transform(trimmed)
  @IsString()
  @MaxLength(254)
  @IsEmail({}, { message: 'email must be an email address' })
  email?: string;

  @ApiPropertyOptional({
    example: 'HMXK2P4Q9R',
    description:
      "paying an existing reservation: its confirmation code, as printed on the guest's confirmation (optional; case-insensitive). " +
      'A guest who gives it is looked up at checkout priority even while guesses fill the public share',
  })
  @Omittable()
  @Transform(trimmed)
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: 'confirmationCode must be a confirmation code' })
  confirmationCode?: string;

  @ApiPropertyOptional({ example: 'q_5Jx2Yb0yq8VbS4m1tWc3dA', description: 'booking: a quote id from POST /checkout/quotes' })
  @Omittable()
  @IsString()
  @Matches(/^q_[A-Za-z0-9_-]{22}$/, { message: 'quoteId must be a quote id from POST /checkout/quotes' })
  quoteId?: string;

  @ApiPropertyOptional({ example: 'rp-flexible', description: "booking: one of the quote's rate plans (default: its first)" })
  @Omittable()
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: 'ratePlanId must be a rate plan id of the quote' })
  ratePlanId?: string;

  @ApiPropertyOptional({ type: BookingGuestDto, description: 'booking: the guest (created, or merged by email)' })
  @Omittable()
  @IsObject()
  @ValidateNested()
  @Type(() => BookingGuestDto)
  guest?: BookingGuestDto;
}
