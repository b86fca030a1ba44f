import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { FastifyRequest } from 'fastify';
import { RequestLimits } from './request-limits';

/**
 * Counts the request against a per-IP limit before anything else runs (invalid bodies count too:
 * they are requests all the same), so a refused request costs no upstream call. The IP is
 * Fastify's `request.ip`, which follows X-Forwarded-For only as far as TRUST_PROXY hops allow.
 */
abstract class ClientIpGuard implements CanActivate {
  constructor(@Inject(RequestLimits) protected readonly limits: RequestLimits) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    await this.count(context.switchToHttp().getRequest<FastifyRequest>().ip);
    return true;
  }

  protected abstract count(ip: string): Promise<void>;
}

/** `@UseGuards(ClientIpLimitGuard)` on the /checkout write routes (`CHECKOUT_IP_RATE_LIMIT`). */
@Injectable()
export class ClientIpLimitGuard extends ClientIpGuard {
  protected count(ip: string): Promise<void> {
    return this.limits.perClientIp(ip);
  }
}

/** `@UseGuards(ClientIpReadLimitGuard)` on every /checkout read that may cost an upstream call (`CHECKOUT_IP_READ_LIMIT`). */
@Injectable()
export class ClientIpReadLimitGuard extends ClientIpGuard {
  protected count(ip: string): Promise<void> {
    return this.limits.perClientIpRead(ip);
  }
}
