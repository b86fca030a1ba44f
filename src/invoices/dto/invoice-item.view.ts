import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** For the OpenAPI description: the invoice item as the upstream recorded it. */
export class InvoiceItemResponse {
  @ApiPropertyOptional({ description: "the upstream's id of the item, when its answer carried one" })
  _id?: string;

  @ApiProperty({ example: 'Late checkout' })
  title!: string;

  @ApiProperty({ example: 40 })
  amount!: number;

  @ApiProperty({ example: 'CF' })
  normalType!: string;

  @ApiPropertyOptional({ example: 'LATE_CHECKOUT' })
  secondIdentifier?: string;

  @ApiPropertyOptional()
  description?: string;
}
