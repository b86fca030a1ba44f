import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { UpstreamModule } from '../upstream/upstream.module';
import { AbuseModule } from '../common/abuse/abuse.module';
import { HealthController } from './health.controller';
import { ShutdownState } from './shutdown-state';

@Module({
  imports: [TerminusModule.forRoot({ logger: false }), UpstreamModule, AbuseModule],
  controllers: [HealthController],
  providers: [ShutdownState],
  exports: [ShutdownState],
})
export class HealthModule {}
