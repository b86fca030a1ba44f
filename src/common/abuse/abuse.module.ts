import { Module } from '@nestjs/common';
import { ClientIpLimitGuard, ClientIpReadLimitGuard } from './client-ip-limit.guard';
import { RequestLimits } from './request-limits';

/** Per-IP limits of the checkout's reads and writes, per-reservation card attempts; the store and config are global. */
@Module({
  providers: [RequestLimits, ClientIpLimitGuard, ClientIpReadLimitGuard],
  exports: [RequestLimits, ClientIpLimitGuard, ClientIpReadLimitGuard],
})
export class AbuseModule {}
