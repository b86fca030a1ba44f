import { Module } from '@nestjs/common';
import { IdempotencyService } from './idempotency.service';

/** Idempotency-Key handling for write routes; the store, keys, config and metrics are global. */
@Module({
  providers: [IdempotencyService],
  exports: [IdempotencyService],
})
export class IdempotencyModule {}
