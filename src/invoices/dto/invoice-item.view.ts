import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { SameFields } from '../../common/http/same-fields';
import { AddedInvoiceItem } from '../added-invoice-item';

/** For the OpenAPI description: the invoice item as the upstream recorded it. */
export class InvoiceItemResponse implements AddedInvoiceItem {
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

const _itemFields: SameFields<InvoiceItemResponse, AddedInvoiceItem> = true;
