import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ExtrasCatalogueView } from './dto/extras-catalogue.view';
import { Extras } from './extras.service';

/** Seconds a browser or CDN may keep the catalogue: it changes only with the configuration. */
const CATALOGUE_MAX_AGE_SECONDS = 300;

// No per-IP read limit: the catalogue comes from the configuration and never costs an upstream call.
@ApiTags('checkout')
@Controller('checkout/extras')
export class ExtrasCatalogueController {
  constructor(private readonly extras: Extras) {}

  @Get()
  @Header('Cache-Control', `public, max-age=${CATALOGUE_MAX_AGE_SECONDS}`)
  @ApiOperation({
    summary: 'The extras a guest may add once the card is on file (public, cacheable)',
    description:
      "From CHECKOUT_EXTRAS. Each extra added becomes one invoice item of amount × quantity on the reservation, charged in the reservation's currency " +
      "by the platform's schedule with the card on file: GET /checkout/sessions/{id}/payment-status shows it as due until it is paid.",
  })
  @ApiOkResponse({ type: ExtrasCatalogueView })
  list(): ExtrasCatalogueView {
    return this.extras.catalogueView();
  }
}
