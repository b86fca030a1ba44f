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

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const counting = this.count(context.switchToHttp().getRequest<FastifyRequest>().ip);
    // A read counted from the replica's reads in hand is decided at once: Nest then awaits nothing.
    return counting ? counting.then(() => true) : true;
  }

  /** Throws when refused; a promise only when the store had to be asked. */
  protected abstract count(ip: string): Promise<void> | undefined;
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
  protected count(ip: string): Promise<void> | undefined {
    return this.limits.perClientIpRead(ip);
  }
}
