import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class CatalogueExtraView {
  @ApiProperty({ example: 'late-checkout', description: 'the code to send in POST /checkout/sessions/{id}/extras' })
  code!: string;

  @ApiProperty({ example: 'Late checkout' })
  title!: string;

  @ApiProperty({ example: 40, description: "per unit, in the reservation's currency; the line's charge is amount × quantity" })
  amount!: number;

  @ApiPropertyOptional({ example: 'Leave at 2 pm instead of 11 am' })
  description?: string;
}

/** The extras on offer (CHECKOUT_EXTRAS): public, the same for every guest. */
export class ExtrasCatalogueView {
  @ApiProperty({ type: [CatalogueExtraView] })
  items!: CatalogueExtraView[];
}
