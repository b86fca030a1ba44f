import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { FastifyRequest } from 'fastify';
import { RequestLimits, ReservationLookup } from './request-limits';

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

/** The lookups the guard checked beside the request it counted, by request, for the route to spend. */
const lookups = new WeakMap<FastifyRequest, ReservationLookup>();

/**
 * `@UseGuards(SessionOpenLimitGuard)` on POST /checkout/sessions: counts the request as
 * ClientIpLimitGuard does and, for a body that names a reservation, checks the network's reservation
 * misses in the same step (one round trip); the route refuses on that check once the body is valid.
 */
@Injectable()
export class SessionOpenLimitGuard extends ClientIpGuard {
  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const body = request.body as { reservationId?: unknown; quoteId?: unknown } | null | undefined;
    if (body?.reservationId === undefined || body.quoteId !== undefined) return super.canActivate(context);
    lookups.set(request, await this.limits.perClientIpOpeningSession(request.ip));
    return true;
  }

  protected count(ip: string): Promise<void> {
    return this.limits.perClientIp(ip);
  }

  /** The lookup this guard checked for the request, if its body named a reservation. */
  static lookupOf(request: FastifyRequest): ReservationLookup | undefined {
    return lookups.get(request);
  }
}
