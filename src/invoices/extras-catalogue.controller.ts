import { Controller, Get, Req, Res } from '@nestjs/common';
import { FastifyReply, FastifyRequest } from 'fastify';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiPublicCaching } from '../common/http/api-public-caching.decorator';
import { PublicCaching, sendPublicJson } from '../common/http/public-answer';
import { ExtrasCatalogueView } from './dto/extras-catalogue.view';
import { ExtrasService } from './extras.service';

/** How long a browser or CDN may keep the catalogue: it changes only with the configuration (a deployment). */
const CATALOGUE_CACHING: PublicCaching = { maxAgeSeconds: 300, staleWhileRevalidateSeconds: 300 };

// No per-IP read limit: the catalogue comes from the configuration and never costs an upstream call.
@ApiTags('checkout')
@Controller('checkout/extras')
export class ExtrasCatalogueController {
  constructor(private readonly extras: ExtrasService) {}

  @Get()
  @ApiOperation({
    summary: 'The extras a guest may add once the card is on file (public, cacheable)',
    description:
      "From CHECKOUT_EXTRAS. Each extra added becomes one invoice item of amount × quantity on the reservation, charged in the reservation's currency " +
      "by the platform's schedule with the card on file: GET /checkout/sessions/{id}/payment-status shows it as due until it is paid.",
  })
  @ApiOkResponse({ type: ExtrasCatalogueView })
  @ApiPublicCaching('5 minutes, as the catalogue changes only with the configuration')
  list(@Req() request: FastifyRequest, @Res() reply: FastifyReply): void {
    sendPublicJson(request, reply, JSON.stringify(this.extras.catalogueView()), CATALOGUE_CACHING);
  }
}
