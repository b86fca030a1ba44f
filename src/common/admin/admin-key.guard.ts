import { createHash, timingSafeEqual } from 'node:crypto';
import { CanActivate, ExecutionContext, Injectable, Logger, NotFoundException } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { FastifyReply, FastifyRequest } from 'fastify';
import { AppConfig } from '../../config/app-config';
import { MetricsService } from '../../metrics/metrics.service';
import { RequestLimits } from '../abuse/request-limits';
import { DomainError } from '../errors/domain-error';

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/**
 * `/admin` routes take `Authorization: Bearer <ADMIN_API_KEY>`. With no key configured they answer
 * the 404 of an unknown route, so a scan learns nothing; a wrong key is 401, counted, and past
 * ADMIN_KEY_FAILURES a minute pauses its network (docs/product-spec.md §2). Keys are compared as
 * SHA-256 digests so timingSafeEqual gets equal lengths and no early exit leaks a prefix.
 */
@Injectable()
export class AdminKeyGuard implements CanActivate {
  private readonly logger = new Logger('AdminKey');
  private readonly expected?: Buffer;

  constructor(
    config: ConfigService<AppConfig, true>,
    private readonly limits: RequestLimits,
    private readonly metrics: MetricsService,
  ) {
    const key = config.get('admin', { infer: true }).apiKey;
    this.expected = key === undefined ? undefined : digest(key);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    if (!this.expected) throw new NotFoundException(`Cannot ${request.method} ${request.url}`);
    await this.limits.adminKeyAdmitted(request.ip);
    const match = /^Bearer +(\S+) *$/i.exec(request.headers.authorization ?? '');
    if (match && timingSafeEqual(digest(match[1]), this.expected)) return true;
    this.metrics.adminKeyFailures.inc();
    this.logger.warn(
      { path: request.url.split('?')[0], keySent: match !== null },
      'an operator route was called with a wrong or missing key',
    );
    await this.limits.adminKeyFailed(request.ip);
    void http.getResponse<FastifyReply>().header('WWW-Authenticate', 'Bearer');
    throw new DomainError('unauthorized', 'Send the operator key as Authorization: Bearer <ADMIN_API_KEY>.');
  }
}
