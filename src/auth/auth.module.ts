import { Global, Module } from '@nestjs/common';
import { AccessTokens } from '../upstream/access-tokens';
import { UpstreamModule } from '../upstream/upstream.module';
import { SharedAccessTokens } from './shared-access-tokens';

/**
 * The access token every replica shares: minted by one replica at a time through the platform's
 * token call, kept encrypted in Redis, counted against the day's allowance. Global because the
 * upstream client asks for the `AccessTokens` it declares without importing this room (which
 * stands on the upstream's token call).
 */
@Global()
@Module({
  imports: [UpstreamModule],
  providers: [SharedAccessTokens, { provide: AccessTokens, useExisting: SharedAccessTokens }],
  exports: [AccessTokens],
})
export class AuthModule {}
