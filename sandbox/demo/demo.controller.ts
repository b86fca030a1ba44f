import { Controller, Get, HttpCode, NotFoundException, Param, Post, Res } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ApiExcludeController } from '@nestjs/swagger';
import { FastifyReply } from 'fastify';
import { randomUUID } from 'node:crypto';
import { AppConfig } from '../../src/config/app-config';
import { SANDBOX_LISTINGS, SANDBOX_RESERVATIONS } from '../fixture-guide';
import { SANDBOX_TEST_CARDS } from '../pay/test-cards';
import { demoAssets } from './demo-assets';
import { EmbeddedSandbox } from './embedded-sandbox';

// Only this origin: the page talks to the service alone and navigates to the issuer page. The sample
// site also frames the drop-in checkout, which this same service serves.
const policy = (frames: boolean) =>
  [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    ...(frames ? ["frame-src 'self'"] : []),
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
const PAGE_FILES = new Set(['index.html', 'site.html']);

/**
 * The demo (sandbox mode only): a sample property site that sells with the drop-in checkout's one
 * script tag, and the API's reference integration (/demo/reference) for the site's developers.
 */
@ApiExcludeController()
@Controller('demo')
export class DemoController {
  private readonly assets = demoAssets();

  /** Cards on each fixture reservation at start: one more means a demo run used it up. */
  private readonly seededCards: Map<string, number>;

  constructor(
    private readonly sandbox: EmbeddedSandbox,
    private readonly config: ConfigService<AppConfig, true>,
  ) {
    this.seededCards = new Map(SANDBOX_RESERVATIONS.map(({ reservationId }) => [reservationId, this.cardsOn(reservationId)]));
  }

  @Get()
  site(@Res() reply: FastifyReply): void {
    this.send(reply, 'site.html', policy(true));
  }

  @Get('reference')
  page(@Res() reply: FastifyReply): void {
    this.send(reply, 'index.html');
  }

  @Get('fixtures')
  fixtures() {
    return {
      // usedUp: a card was put on it since start (fixtures are not renewed until restart: POST /demo/reservations makes fresh ones).
      reservations: SANDBOX_RESERVATIONS.filter((reservation) => reservation.balanceDue > 0).map((reservation) => ({
        ...reservation,
        usedUp: this.cardsOn(reservation.reservationId) > (this.seededCards.get(reservation.reservationId) ?? 0),
      })),
      listings: SANDBOX_LISTINGS.map(({ listingId, currency, note }) => ({ listingId, currency, note })),
      cards: SANDBOX_TEST_CARDS.map(({ number, description }) => ({ number, description })),
      paymentStatusRefreshSeconds: this.config.get('budget', { infer: true }).paymentStatusRefreshSeconds,
    };
  }

  private cardsOn(reservationId: string): number {
    const guestId = this.sandbox.control.getReservation(reservationId)?.guestId;
    if (typeof guestId !== 'string') return 0;
    return this.sandbox.control.getPaymentMethods(guestId).filter((method) => method.reservationId === reservationId).length;
  }

  /** A fresh unpaid reservation, so the demo can be run again and again. */
  @Post('reservations')
  @HttpCode(201)
  newReservation() {
    const guestEmail = `demo-${randomUUID().slice(0, 8)}@example.com`;
    const { reservationId } = this.sandbox.control.createReservation({
      listingId: 'lst-seaside',
      guestEmail,
      guestName: 'Demo Guest',
      balanceDue: 640,
      currency: 'USD',
    });
    // The code a guest finds in their confirmation: with it, their lookup is not a guess (docs/product-spec.md §7).
    const confirmationCode = this.sandbox.control.getReservation(reservationId)?.confirmationCode;
    return { reservationId, guestEmail, ...(typeof confirmationCode === 'string' ? { confirmationCode } : {}) };
  }

  @Get(':file')
  asset(@Param('file') file: string, @Res() reply: FastifyReply): void {
    if (PAGE_FILES.has(file) || !this.assets.has(file)) throw new NotFoundException();
    this.send(reply, file);
  }

  private send(reply: FastifyReply, file: string, contentSecurityPolicy: string = policy(false)): void {
    const asset = this.assets.read(file);
    void reply
      .header('Content-Type', asset.contentType)
      .header('Content-Security-Policy', contentSecurityPolicy)
      .header('Cache-Control', 'no-store')
      .send(asset.body);
  }
}
