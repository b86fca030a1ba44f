import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class AddedExtraView {
  @ApiProperty({ example: 'late-checkout' })
  code!: string;

  @ApiProperty({ example: 1 })
  quantity!: number;

  @ApiProperty({ example: 'Late checkout' })
  title!: string;

  @ApiProperty({ example: 40, description: 'catalogue amount × quantity' })
  amount!: number;

  @ApiProperty({ example: 'CF' })
  normalType!: string;

  @ApiPropertyOptional({ description: "the upstream's id of the invoice item, when it gave one" })
  invoiceItemId?: string;
}

/** The extras added: one invoice item per line. */
export class AddedExtrasView {
  @ApiProperty({ type: [AddedExtraView] })
  items!: AddedExtraView[];
}
