import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService } from '@nestjs/terminus';
import { RedisHealthIndicator } from '../redis/redis.health';
import { ShutdownState } from './shutdown-state';
import { ApiProblems } from '../common/http/api-problems.decorator';
import { UnexpectedAnswers } from '../upstream/unexpected-answers';
import { HealthView } from './platform-answers.view';
import { RequestLimits } from '../common/abuse/request-limits';

@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly redis: RedisHealthIndicator,
    private readonly shutdown: ShutdownState,
    private readonly unexpectedAnswers: UnexpectedAnswers,
    private readonly requestLimits: RequestLimits,
  ) {}

  @Get()
  @ApiOperation({
    summary:
      'What an operator should know of this replica: the platform reads that answered in a way the service cannot rely on, and when; whether anonymous traffic reached its ceiling of Redis records. Always 200; readiness is not affected. Never calls the upstream.',
  })
  @ApiOkResponse({ type: HealthView })
  overview(): HealthView {
    const platformAnswersUnexpected = this.unexpectedAnswers.operations();
    return {
      status: platformAnswersUnexpected.length > 0 ? 'platform_answers_unexpected' : 'ok',
      platformAnswersUnexpected,
      anonymousRecordsCeilingReachedUntil: this.requestLimits.anonymousRecordsReachedUntil(),
    };
  }

  @Get('live')
  @HealthCheck()
  @ApiOperation({ summary: 'Liveness: the process answers. No I/O; never depends on Redis or the upstream.' })
  live() {
    return this.health.check([]);
  }

  @Get('ready')
  @HealthCheck()
  @ApiOperation({ summary: 'Readiness: shared state reachable and not shutting down. Never calls the upstream.' })
  @ApiOkResponse({ description: 'Ready' })
  @ApiProblems('not_ready', 'shutting_down')
  ready() {
    if (this.shutdown.isShuttingDown) throw new ServiceUnavailableException({ status: 'shutting_down' });
    return this.health.check([() => this.redis.isReachable()]);
  }
}
