import { HttpModule } from '@nestjs/axios';
import { Module } from '@nestjs/common';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { GuestyClient } from './guesty-client';
import { GuestyTokenIssuer } from './guesty-token-issuer';
import { OutboundRateLimiter } from './outbound-rate-limiter';
import { PaymentProviders } from './payment-providers';
import { UpstreamHttp } from './upstream-http';
import { UpstreamMetrics } from './upstream-metrics';
import { UnexpectedAnswers } from './unexpected-answers';

/**
 * The upstream: the only module that speaks HTTP to the Open API and the tokenization host, with
 * the outbound budget, the typed client features use, the listing's payment provider (a cached read
 * four rooms need) and the platform's unexpected answers `/health` shows. The client's access token
 * (`AccessTokens`) comes from the shared token of src/auth/ (AuthModule).
 */
@Module({
  imports: [
    HttpModule.register({
      // Keep-alive: the upstream budget is small, but each call should not pay a TLS handshake.
      httpAgent: new HttpAgent({ keepAlive: true, maxSockets: 32 }),
      httpsAgent: new HttpsAgent({ keepAlive: true, maxSockets: 32 }),
      maxRedirects: 0,
    }),
  ],
  providers: [UpstreamHttp, UpstreamMetrics, UnexpectedAnswers, GuestyTokenIssuer, OutboundRateLimiter, GuestyClient, PaymentProviders],
  exports: [GuestyClient, PaymentProviders, GuestyTokenIssuer, UpstreamMetrics, UnexpectedAnswers],
})
export class UpstreamModule {}
