import { Global, Module } from '@nestjs/common';
import { AccessTokens } from '../guesty/access-tokens';
import { GuestyModule } from '../guesty/guesty.module';
import { SharedAccessTokens } from './shared-access-tokens';

/**
 * The shared access token. Global so that the upstream client (GuestyModule) gets AccessTokens
 * without importing this module, which itself needs GuestyModule's token issuer.
 */
@Global()
@Module({
  imports: [GuestyModule],
  providers: [SharedAccessTokens, { provide: AccessTokens, useExisting: SharedAccessTokens }],
  exports: [AccessTokens],
})
export class AuthModule {}
