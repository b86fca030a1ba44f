import { Controller, Get, HttpCode, NotFoundException, Param, Post, Res } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ApiExcludeController } from '@nestjs/swagger';
import { FastifyReply } from 'fastify';
import { randomUUID } from 'node:crypto';
import { AppConfig } from '../../src/config/app-config';
import { SANDBOX_RESERVATIONS } from '../fixture-guide';
import { SANDBOX_TEST_CARDS } from '../pay/test-cards';
import { DemoAsset, loadDemoAssets } from './demo-assets';
import { EmbeddedSandbox } from './embedded-sandbox';

// Only this origin: the page talks to the service alone and navigates to the issuer page.
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The demo checkout page (sandbox mode only): the reference integration, and a way to try it. */
@ApiExcludeController()
@Controller('demo')
export class DemoController {
  private readonly assets: Map<string, DemoAsset> = loadDemoAssets();

  constructor(
    private readonly sandbox: EmbeddedSandbox,
    private readonly config: ConfigService<AppConfig, true>,
  ) {}

  @Get()
  page(@Res() reply: FastifyReply): void {
    this.send(reply, 'index.html');
  }

  @Get('fixtures')
  fixtures() {
    return {
      reservations: SANDBOX_RESERVATIONS.filter((reservation) => reservation.balanceDue > 0),
      cards: SANDBOX_TEST_CARDS.map(({ number, description }) => ({ number, description })),
      extras: this.config.get('checkout', { infer: true }).extras.map(({ code, title, amount }) => ({ code, title, amount })),
    };
  }

  /** A fresh unpaid reservation, so the demo can be run again and again. */
  @Post('reservations')
  @HttpCode(201)
  newReservation() {
    const guestEmail = `demo-${randomUUID().slice(0, 8)}@example.com`;
    const { reservationId } = this.sandbox.control.createReservation({ listingId: 'lst-seaside', guestEmail, guestName: 'Demo Guest', balanceDue: 640, currency: 'USD' });
    return { reservationId, guestEmail };
  }

  @Get(':file')
  asset(@Param('file') file: string, @Res() reply: FastifyReply): void {
    if (file === 'index.html' || !this.assets.has(file)) throw new NotFoundException();
    this.send(reply, file);
  }

  private send(reply: FastifyReply, file: string): void {
    const asset = this.assets.get(file)!;
    void reply
      .header('Content-Type', asset.contentType)
      .header('Content-Security-Policy', CONTENT_SECURITY_POLICY)
      .header('Cache-Control', 'no-store')
      .send(asset.body);
  }
}

