import { Controller, Get, Logger, Param, Post, Query, Redirect } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ConfigService } from '@nestjs/config';
import { AppConfig } from '../config/app-config';
import { CardPaymentsService, ThreeDsOutcome } from './card-payments.service';

/**
 * Where the issuer sends the browser after 3-D Secure. Both outcomes answer 303 to the configured
 * CHECKOUT_RETURN_URL and nowhere else, whatever the request carries. The state is read as a
 * plain query value, not a whitelisted DTO: an issuer that adds its own parameters must still
 * bring the guest back to the site, never to an error page.
 */
/** The one-time state the service put in the return URLs it gave the issuer. */
const STATE_QUERY = {
  name: 'state',
  required: false,
  description: 'the one-time state of the 3-D Secure attempt, as the service wrote it into the return URL it gave the issuer',
  schema: { type: 'string' },
} as const;

const THREE_DS_RETURN_HEADERS = {
  Location: {
    description: 'CHECKOUT_RETURN_URL with `session` and `status` added; never another address',
    schema: { type: 'string', format: 'uri' },
  },
};

@ApiTags('checkout')
@Controller('checkout/3ds/:id')
export class ThreeDsController {
  private readonly logger = new Logger('ThreeDsController');

  constructor(
    private readonly cards: CardPaymentsService,
    private readonly config: ConfigService<AppConfig, true>,
  ) {}

  @Get('success')
  @Redirect(undefined, 303)
  @ApiOperation({ summary: '3-D Secure success return: attaches the payment method once, then 303 to the site' })
  @ApiResponse({
    status: 303,
    description: 'to CHECKOUT_RETURN_URL?session=ID&status=succeeded|failed|processing',
    headers: THREE_DS_RETURN_HEADERS,
  })
  @ApiQuery(STATE_QUERY)
  success(@Param('id') id: string, @Query('state') state: unknown): Promise<{ url: string }> {
    return this.finish(id, 'success', state);
  }

  @Get('failure')
  @Redirect(undefined, 303)
  @ApiOperation({ summary: '3-D Secure failure return: records it, then 303 to the site' })
  @ApiResponse({ status: 303, description: 'to CHECKOUT_RETURN_URL?session=ID&status=failed', headers: THREE_DS_RETURN_HEADERS })
  @ApiQuery(STATE_QUERY)
  failure(@Param('id') id: string, @Query('state') state: unknown): Promise<{ url: string }> {
    return this.finish(id, 'failure', state);
  }

  // Some issuers post the browser back (a form); the state still travels in the query.
  @Post('success')
  @Redirect(undefined, 303)
  @ApiOperation({ summary: 'The same success return, posted by the issuer page' })
  @ApiQuery(STATE_QUERY)
  @ApiResponse({
    status: 303,
    description: 'to CHECKOUT_RETURN_URL?session=ID&status=succeeded|failed|processing',
    headers: THREE_DS_RETURN_HEADERS,
  })
  successPosted(@Param('id') id: string, @Query('state') state: unknown): Promise<{ url: string }> {
    return this.finish(id, 'success', state);
  }

  @Post('failure')
  @Redirect(undefined, 303)
  @ApiOperation({ summary: 'The same failure return, posted by the issuer page' })
  @ApiQuery(STATE_QUERY)
  @ApiResponse({ status: 303, description: 'to CHECKOUT_RETURN_URL?session=ID&status=failed', headers: THREE_DS_RETURN_HEADERS })
  failurePosted(@Param('id') id: string, @Query('state') state: unknown): Promise<{ url: string }> {
    return this.finish(id, 'failure', state);
  }

  private async finish(id: string, outcome: ThreeDsOutcome, state: unknown): Promise<{ url: string }> {
    const given = typeof state === 'string' ? state : undefined;
    const status = await this.cards.completeThreeDs(id, outcome, given).catch((error: unknown) => {
      this.logger.error({ err: error, outcome }, 'a 3-D Secure return failed unexpectedly; the browser is sent on with status=failed');
      return 'failed' as const;
    });
    const url = new URL(this.config.get('checkout', { infer: true }).returnUrl);
    url.searchParams.set('session', id.slice(0, 64));
    url.searchParams.set('status', status);
    return { url: url.toString() };
  }
}
