import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsEmail, IsString, Matches, MaxLength } from 'class-validator';

export class CreateSessionDto {
  @ApiProperty({ example: 'res-checkout-usd' })
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: 'reservationId must be a reservation id' })
  reservationId!: string;

  @ApiProperty({ example: 'olivia@example.com', description: "the reservation guest's email (case-insensitive)" })
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value))
  @IsString()
  @MaxLength(254)
  @IsEmail({}, { message: 'email must be an email address' })
  email!: string;
}
