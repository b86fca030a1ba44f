import { Body, Controller, Headers, Module, Param, Post, Res } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { DomainError } from '../../src/common/errors/domain-error';
import { IdempotencyModule } from '../../src/common/idempotency/idempotency.module';
import { IdempotencyService } from '../../src/common/idempotency/idempotency.service';

export type ProbeOutcome = 'answer' | 'declined' | 'invalid' | 'upstream' | 'crash' | 'busy';

/** A promise the test resolves by hand. */
export class Gate {
  readonly opened: Promise<void>;
  open!: () => void;

  constructor() {
    this.opened = new Promise((resolve) => (this.open = resolve));
  }
}

/**
 * What the probe's work does, shared by every app instance in the test process: it counts its runs,
 * signals when one starts, may hold until the test opens a gate, then answers as `outcome` says.
 */
export const probe = {
  runs: 0,
  outcome: 'answer' as ProbeOutcome,
  started: new Gate(),
  hold: undefined as Gate | undefined,
  reset(): void {
    this.runs = 0;
    this.outcome = 'answer';
    this.started = new Gate();
    this.hold = undefined;
  },
};

async function work(): Promise<{ status: number; body: { run: number; accepted: true } }> {
  probe.runs += 1;
  const run = probe.runs;
  probe.started.open();
  if (probe.hold) await probe.hold.opened;
  switch (probe.outcome) {
    case 'declined':
      throw new DomainError('card_declined', 'The card was declined. Please use another card.');
    case 'invalid':
      throw DomainError.validation([{ field: 'card.number', message: 'not a valid card number' }]);
    case 'upstream':
      throw new DomainError('upstream_unavailable', 'The booking platform is unavailable.', { retryAfterSeconds: 5 });
    case 'busy':
      throw new DomainError('step_in_progress', 'Another payment step is still running.', { retryAfterSeconds: 1 });
    case 'crash':
      throw new Error('lost the connection half way');
    default:
      return { status: 201, body: { run, accepted: true } };
  }
}

/** A write route behind IdempotencyService.run, scoped by the path's target, as a checkout route would be. */
@Controller('test')
class IdempotentProbeController {
  constructor(private readonly idempotency: IdempotencyService) {}

  @Post('idempotent/:target')
  async run(
    @Param('target') target: string,
    @Headers('idempotency-key') key: string | undefined,
    @Body() body: Record<string, unknown>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    const answer = await this.idempotency.run(`probe:${target}`, key, body, work);
    void reply.status(answer.status).header('Idempotent-Replayed', String(answer.replayed));
    return answer.body;
  }
}

@Module({ imports: [IdempotencyModule], controllers: [IdempotentProbeController] })
export class IdempotencyProbeModule {}
