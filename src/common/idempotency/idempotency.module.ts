import { Module } from '@nestjs/common';
import { Idempotency } from './idempotency.service';

/** Idempotency-Key handling for write routes; the store, keys, config and metrics are global. */
@Module({
  providers: [Idempotency],
  exports: [Idempotency],
})
export class IdempotencyModule {}
