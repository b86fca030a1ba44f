import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** What the booking site may show of a listing: no owners, notes or internal fields. */
export class ListingSummary {
  @ApiProperty({ example: 'lst-seaside' })
  id!: string;

  @ApiProperty({ example: 'Seaside Villa with Ocean View' })
  title!: string;

  @ApiPropertyOptional({ example: 'Miami Beach' })
  city?: string;

  @ApiPropertyOptional({ example: 'US' })
  country?: string;

  @ApiPropertyOptional({ example: 'https://images.example.com/villa.jpg' })
  picture?: string;

  @ApiPropertyOptional({ example: 'USD' })
  currency?: string;
}
