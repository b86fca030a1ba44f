import { Module } from '@nestjs/common';
import { ClientIpLimitGuard } from './client-ip-limit.guard';
import { RequestLimits } from './request-limits';

/** Per-IP and per-reservation limits of the checkout's write routes; the store and config are global. */
@Module({
  providers: [RequestLimits, ClientIpLimitGuard],
  exports: [RequestLimits, ClientIpLimitGuard],
})
export class AbuseModule {}
