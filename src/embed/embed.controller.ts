import { Controller, Get, Headers, NotFoundException, Param, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { FastifyReply, FastifyRequest } from 'fastify';
import { PublicCaching, sendPublic } from '../common/http/public-answer';
import { EmbedService } from './embed.service';

/** embed.js may be kept five minutes (and used a day stale while asked again): a fix reaches every site within minutes. */
const SCRIPT_CACHING: PublicCaching = { maxAgeSeconds: 300, staleWhileRevalidateSeconds: 86_400 };
/** The frame's files are asked again on every load (304 while unchanged): the page and its script change together. */
const FRAME_FILE_CACHING: PublicCaching = { maxAgeSeconds: 0, staleWhileRevalidateSeconds: 0 };

/** The drop-in checkout's routes: HTML and scripts, not the JSON API (docs/integrating-the-checkout.md, "One script tag"). */
@ApiExcludeController()
@Controller('checkout')
export class EmbedController {
  constructor(private readonly embed: EmbedService) {}

  @Get('embed.js')
  script(@Req() request: FastifyRequest, @Res() reply: FastifyReply): void {
    const asset = this.embed.script();
    // Loaded by the site's page, another origin: helmet's same-origin resource policy would block it.
    void reply.header('Cross-Origin-Resource-Policy', 'cross-origin');
    sendPublic(request, reply, asset, SCRIPT_CACHING, asset.etag);
  }

  /**
   * Asked by embed.js from the site's page: whether that page's origin may frame the checkout. The
   * browser's Origin decides; a page on the service's own origin sends none, and names itself.
   */
  @Get('embed/allowed')
  allowed(@Headers('origin') sent: string | undefined, @Query('origin') named: string | undefined, @Res() reply: FastifyReply): void {
    const origin = sent ?? named;
    void reply
      .header('Access-Control-Allow-Origin', '*')
      .header('Cross-Origin-Resource-Policy', 'cross-origin')
      .header('Cache-Control', 'no-store')
      .header('Vary', 'Origin')
      .send({ allowed: this.embed.allows(origin) });
  }

  @Get('embed')
  frame(@Query() query: Record<string, string | undefined>, @Res() reply: FastifyReply): void {
    const page = this.embed.frame(query);
    // helmet's X-Frame-Options would contradict frame-ancestors: the policy alone says who may frame this page.
    reply.removeHeader('X-Frame-Options');
    void reply
      .status(page.status)
      .header('Content-Security-Policy', page.contentSecurityPolicy)
      .header('Cache-Control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(page.html);
  }

  @Get('embed/returned')
  returned(@Res() reply: FastifyReply): void {
    void reply
      .header('Content-Security-Policy', "default-src 'none'; script-src 'self'; style-src 'self'; base-uri 'none'; frame-ancestors 'none'")
      .header('Cache-Control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(this.embed.returned());
  }

  @Get('embed/assets/:file')
  frameFile(@Param('file') file: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): void {
    const asset = this.embed.frameFile(file);
    if (!asset) throw new NotFoundException();
    sendPublic(request, reply, asset, FRAME_FILE_CACHING, asset.etag);
  }
}
