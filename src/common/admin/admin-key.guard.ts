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
 * `@UseGuards(AdminKeyGuard)` on `/admin` routes: `Authorization: Bearer <ADMIN_API_KEY>`. Without a
 * configured key the route does not exist (the very 404 of an unknown route, so a scan learns
 * nothing); a wrong or missing key is 401, counted (a metric, a log line) and, past
 * ADMIN_KEY_FAILURES a minute from one network, paused (429 for every key from it until the pause
 * ends). Keys are compared as SHA-256 digests in constant time: equal lengths for timingSafeEqual,
 * and no early exit that times how much of the key was right.
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
