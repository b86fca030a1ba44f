import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { AppConfig } from '../config/app-config';
import { AccessTokenGrant } from './guesty.types';
import { UpstreamError } from './upstream-error';
import { UpstreamHttp } from './upstream-http';

export interface MintedToken {
  value: string;
  expiresInSeconds: number;
}

/** POST {auth}/oauth2/token (docs/upstream-seed.md §4.1). Called only by SharedAccessTokens, under its mint lock and ledger. */
@Injectable()
export class GuestyTokenIssuer {
  constructor(
    private readonly http: UpstreamHttp,
    private readonly config: ConfigService<AppConfig, true>,
  ) {}

  async mint(): Promise<MintedToken> {
    const { clientId, clientSecret, tokenCredentials } = this.config.get('guesty', { infer: true });
    if (!clientId || !clientSecret) throw new Error('Guesty credentials are not configured');
    const form = new URLSearchParams({ grant_type: 'client_credentials', scope: 'open-api' });
    const headers: Record<string, string> = {};
    if (tokenCredentials === 'basic') {
      headers.Authorization = `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`;
    } else {
      form.set('client_id', clientId);
      form.set('client_secret', clientSecret);
    }
    // Never retried here: a lost answer may still have spent one of the day's tokens.
    const answer = await this.http.send({ operation: 'mintToken', host: 'auth', method: 'POST', path: '/oauth2/token', form, headers });
    const details = { operation: 'mintToken', upstreamStatus: answer.status, upstreamRequestId: answer.requestId, maybeSent: true };
    if (answer.status === 200) {
      const grant = answer.data as Partial<AccessTokenGrant>;
      if (typeof grant.access_token === 'string' && grant.access_token.length > 0 && typeof grant.expires_in === 'number') {
        return { value: grant.access_token, expiresInSeconds: grant.expires_in };
      }
      throw new UpstreamError('upstream_error', 'The booking platform answered the token request without a token.', details);
    }
    if (answer.status === 429) {
      throw new UpstreamError('token_budget_exhausted', 'The booking platform refuses new access tokens for now.', {
        ...details,
        retryAfterSeconds: answer.retryAfterSeconds ?? 3600,
      });
    }
    if (answer.status === 400 || answer.status === 401 || answer.status === 403) {
      throw new UpstreamError('upstream_forbidden', 'The booking platform refused the service credentials.', details);
    }
    throw new UpstreamError('upstream_unavailable', 'The booking platform could not issue a token.', { ...details, retryAfterSeconds: 5 });
  }
}
