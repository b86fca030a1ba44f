import { Controller, Module, Param, Post, UseGuards } from '@nestjs/common';
import { AbuseModule } from '../../src/common/abuse/abuse.module';
import { ClientIpLimitGuard } from '../../src/common/abuse/client-ip-limit.guard';
import { RequestLimits } from '../../src/common/abuse/request-limits';

/** Probe routes: one write route behind the per-IP guard, one that counts a card attempt. */
@Controller('test')
class RequestLimitsProbeController {
  constructor(private readonly limits: RequestLimits) {}

  @Post('limited')
  @UseGuards(ClientIpLimitGuard)
  limited(): { ok: true } {
    return { ok: true };
  }

  @Post('card-attempts/:reservationId')
  async cardAttempt(@Param('reservationId') reservationId: string): Promise<{ ok: true }> {
    await this.limits.cardAttempt(reservationId);
    return { ok: true };
  }
}

@Module({ imports: [AbuseModule], controllers: [RequestLimitsProbeController] })
export class RequestLimitsProbeModule {}
