import { Controller, HttpCode, NotFoundException, Post, Req } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ApiExcludeEndpoint } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { DomainError } from '../common/errors/domain-error';
import { AppConfig } from '../config/app-config';
import { GuestyWebhooksService } from './guesty-webhooks.service';

/** Larger than any platform event; a bigger body is refused before it is verified. */
const WEBHOOK_BODY_LIMIT_BYTES = 256 * 1024;

@Controller('webhooks')
export class GuestyWebhooksController {
  private readonly secret?: string;

  constructor(
    private readonly webhooks: GuestyWebhooksService,
    config: ConfigService<AppConfig, true>,
  ) {
    this.secret = config.get('guesty', { infer: true }).webhookSecret;
  }

  /** 204 for every verified event (unknown ones included, ignored); 401 problem for a bad or missing signature. */
  @Post('guesty')
  @HttpCode(204)
  @ApiExcludeEndpoint()
  async receive(@Req() request: FastifyRequest & { rawBody?: Buffer }): Promise<void> {
    // Without a subscription secret the route does not exist (the very 404 of an unknown route).
    if (!this.secret) throw new NotFoundException(`Cannot ${request.method} ${request.url}`);
    const raw = request.rawBody;
    if (!raw) throw new DomainError('unsupported_media_type', 'A webhook is a JSON body.');
    if (raw.length > WEBHOOK_BODY_LIMIT_BYTES) throw new DomainError('payload_too_large', 'The webhook body is too large.');
    await this.webhooks.receive(this.secret, raw, request.headers);
  }
}
