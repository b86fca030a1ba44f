import { Module } from '@nestjs/common';
import { UpstreamModule } from '../upstream.module';
import { PlatformCheck } from './platform-check';

/** The go-live check's reads, on the product's own client: loaded by `npm run platform:check` alone, not by the service. */
@Module({
  imports: [UpstreamModule],
  providers: [PlatformCheck],
  exports: [PlatformCheck],
})
export class PlatformCheckModule {}
