import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { FastifyRequest } from 'fastify';
import { RequestLimits } from './request-limits';

/**
 * `@UseGuards(ClientIpLimitGuard)`: counts the request against the per-IP limit before anything
 * else runs (invalid bodies count too: they are requests all the same). The IP is Fastify's
 * `request.ip`, which follows X-Forwarded-For only as far as TRUST_PROXY hops allow.
 */
@Injectable()
export class ClientIpLimitGuard implements CanActivate {
  constructor(@Inject(RequestLimits) private readonly limits: RequestLimits) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    await this.limits.perClientIp(context.switchToHttp().getRequest<FastifyRequest>().ip);
    return true;
  }
}
